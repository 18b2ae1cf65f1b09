import { z } from 'zod';
import { channel } from './channel';

/** Schemas of the diagnostics channels: the diagnostics report (diagnostics:*) and the renderer's error reports (app:report-error). */

/** Request of `app:report-error`: an uncaught renderer error, logged (redacted) by main. */
export const errorReportSchema = z.strictObject({
  source: z.enum(['vue', 'window', 'promise']),
  message: z.string().max(4_000),
  stack: z.string().max(20_000).optional(),
  info: z.string().max(500).optional(),
});

/** Request of `diagnostics:get` / `diagnostics:save`: profile names only when the analyst ticks them in (they can name customers). */
const diagnosticsRequestSchema = z.strictObject({ includeProfileNames: z.boolean().optional() });

/** The diagnostics channels (spread into the contract's channel map). */
export const diagnosticsChannels = {
  /** The diagnostics report as text (version, OS, profile origins, log tail, queue, userData files); never a key. */
  'diagnostics:get': channel(diagnosticsRequestSchema, z.object({ text: z.string() })),
  /** Saves the diagnostics report with the system save dialog (where the host has one). */
  'diagnostics:save': channel(diagnosticsRequestSchema, z.object({ saved: z.boolean(), path: z.string().nullable() })),
  /** Logs an uncaught renderer error in main's log (redacted). */
  // logged is false when the report was over the rate limit (main logs how many it dropped).
  'app:report-error': channel(errorReportSchema, z.object({ logged: z.boolean() })),
};
