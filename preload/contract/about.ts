import { z } from 'zod';

/**
 * Schemas of the internal-distribution channels: About, the admin policy,
 * diagnostics, renderer error reports and updates.
 */

/** One bundled production dependency and its licence (generated at build time). */
export const licenseEntrySchema = z.object({ name: z.string(), version: z.string(), license: z.string() });

/** Response of `app:about`. */
export const aboutSchema = z.object({
  version: z.string(),
  contractVersion: z.string(),
  platform: z.string(),
  arch: z.string(),
  electron: z.string().nullable(),
  chrome: z.string().nullable(),
  node: z.string(),
  licenses: z.array(licenseEntrySchema),
  /** Why the list is empty (a development run without a build), else null. */
  licensesNote: z.string().nullable(),
});

/** The admin policy as the renderer sees it: what is fixed, and whether the file was valid. */
export const policyViewSchema = z.object({
  status: z.enum(['none', 'applied', 'invalid']),
  file: z.string(),
  problems: z.array(z.string()),
  lockedProfileIds: z.array(z.string()),
  hideDemoService: z.boolean(),
  basemap: z.object({ online: z.enum(['osm', 'none', 'xyz']), xyzUrl: z.string().nullable(), attribution: z.string().nullable() }).nullable(),
  downloadDir: z.string().nullable(),
  updates: z.object({ url: z.string().nullable(), channel: z.enum(['stable', 'beta']).nullable(), enabled: z.boolean().nullable() }).nullable(),
  monthlyBudget: z.object({ amount: z.number(), currency: z.string() }).nullable(),
  notifications: z.boolean().nullable(),
  /** The team library's catalog, share and read URL, as IT set them (shown, never changed by the analyst). */
  team: z.object({ catalogUrl: z.string().nullable(), sharePath: z.string().nullable(), readUrl: z.string().nullable() }).nullable(),
});

/** Where updates stand. */
export const updateStatusSchema = z.object({
  state: z.enum(['off', 'idle', 'checking', 'none', 'downloading', 'ready', 'error']),
  message: z.string(),
  currentVersion: z.string(),
  version: z.string().nullable(),
  releaseNotes: z.string().nullable(),
  percent: z.number().nullable(),
  url: z.string().nullable(),
  channel: z.enum(['stable', 'beta']),
  channelFixed: z.boolean(),
  checkedAt: z.string().nullable(),
});

/** Request of `app:report-error`: an uncaught renderer error, logged (redacted) by main. */
export const errorReportSchema = z.strictObject({
  source: z.enum(['vue', 'window', 'promise']),
  message: z.string().max(4_000),
  stack: z.string().max(20_000).optional(),
  info: z.string().max(500).optional(),
});

/** Commands the application menu sends to the window. */
export const appCommandSchema = z.object({ command: z.enum(['about', 'downloads']) });
