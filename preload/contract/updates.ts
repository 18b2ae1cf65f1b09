import { z } from 'zod';
import { channel, noRequest } from './channel';

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

/** The updates channels (spread into the contract's channel map). */
export const updateChannels = {
  /** Where updates stand. */
  'updates:status': channel(noRequest, updateStatusSchema),
  /** Looks for an update now. */
  'updates:check': channel(noRequest, updateStatusSchema),
  /** Restarts into the downloaded update; the user asked for it. */
  'updates:install': channel(noRequest, updateStatusSchema),
  /** Chooses the stable or beta channel, unless the policy fixes it. */
  'updates:set-channel': channel(z.strictObject({ channel: z.enum(['stable', 'beta']) }), updateStatusSchema),
};
