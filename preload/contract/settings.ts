import { z } from 'zod';
import { channel, folder, noRequest } from './channel';

/** Schemas of the settings channels (settings:*): the user's settings kept by main. */

/** User settings kept by main. */
export const settingsSchema = z.object({
  downloadDir: folder(),
  theme: z.enum(['system', 'light', 'dark']),
  osmLayer: z.boolean(),
  /** The last map view (lon/lat centre and zoom), restored at start; absent before the first move. */
  mapView: z.object({
    center: z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]),
    zoom: z.number().min(0).max(24),
  }).optional(),
});

/** The settings channels (spread into the contract's channel map). */
export const settingsChannels = {
  /** User settings. */
  'settings:get': channel(noRequest, settingsSchema),
  /** Changes some settings. */
  'settings:set': channel(settingsSchema.partial().strict(), settingsSchema),
};
