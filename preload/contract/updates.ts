import { z } from 'zod';

/** Schemas of the updates:* channels and the updates:state event. */

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
