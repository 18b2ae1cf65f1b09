import { z } from 'zod';
import { channel, noRequest } from './channel';

/** Schemas of About (app:about) and of the application menu's commands to the window. */

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

/** Commands the application menu sends to the window. */
export const appCommandSchema = z.object({ command: z.enum(['about', 'downloads']) });

/** About's channel (spread into the contract's channel map). */
export const aboutChannels = {
  /** Version, contract version and the licences of the bundled dependencies. */
  'app:about': channel(noRequest, aboutSchema),
};
