import { z } from 'zod';
import { channel, noRequest } from './channel';

/** Schemas of the admin policy's channel (policy:get). */

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

/** The admin policy's channel (spread into the contract's channel map). */
export const policyChannels = {
  /** The admin policy: what it fixes, or why the file was ignored. */
  'policy:get': channel(noRequest, policyViewSchema),
};
