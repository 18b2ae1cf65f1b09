import { z } from 'zod';

/** Schemas of the diagnostics channels: the renderer's error reports (app:report-error). */

/** Request of `app:report-error`: an uncaught renderer error, logged (redacted) by main. */
export const errorReportSchema = z.strictObject({
  source: z.enum(['vue', 'window', 'promise']),
  message: z.string().max(4_000),
  stack: z.string().max(20_000).optional(),
  info: z.string().max(500).optional(),
});
