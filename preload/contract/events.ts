import { z } from 'zod';
import { libraryEntrySchema } from './library';
import { appCommandSchema } from './about';
import { updateStatusSchema } from './updates';
import { teamEvents } from './team';
import { notificationEvents } from './notifications';
import { spendEvents } from './spend';
import { watchEvents } from './watches';
import { fieldEvents } from './fields';

/** Connection states of the active service, as shown in the status bar. */
export const connectionStates = ['connecting', 'online', 'offline'] as const;

/** One of {@link connectionStates}. */
export type ConnectionState = (typeof connectionStates)[number];

/** THE event map: events main pushes to the renderer, name -> payload schema. */
export const events = {
  'connection:state': z.object({
    state: z.enum(connectionStates),
    detail: z.string().optional(),
  }),
  /** The service publishes another contract version than the app was built for. */
  'contract:notice': z.object({ expected: z.string(), actual: z.string().nullable(), message: z.string() }),
  /** Throttled progress of a running download. */
  'download:progress': z.object({
    jobId: z.string(),
    bytes: z.number(),
    total: z.number().nullable(),
    rateBytesPerSec: z.number(),
    etaSec: z.number().nullable(),
  }),
  /** A download job changed state (queued, running, done, failed, cancelled). */
  'job:state': z.object({ id: z.string(), state: z.string() }).passthrough(),
  /** Rasters were added, refreshed (upserted: their entries as they are now) or removed (their ids). */
  'library:changed': z.object({ upserted: z.array(libraryEntrySchema), removed: z.array(z.string()) }),
  /** Progress (0..1) of building a library raster's overview copy. */
  'library:overview-progress': z.object({ id: z.string(), fraction: z.number().min(0).max(1) }),
  /** Update state changed (checking, downloading, ready to restart, error). */
  'updates:state': updateStatusSchema,
  /** The application menu asks the window to do something (open About). */
  'app:command': appCommandSchema,
  /** Watches (./watches). */
  ...watchEvents,
  /** The spend guard (./spend). */
  ...spendEvents,
  /** Notifications (./notifications). */
  ...notificationEvents,
  /** The team library (./team). */
  ...teamEvents,
  /** Parcel sets (./fields). */
  ...fieldEvents,
} satisfies Record<string, z.ZodType>;

/** The real contract's event map type. */
export type Events = typeof events;

/** Name of an event of the real contract. */
export type EventName = keyof Events;

/** Payload of event `E`. */
export type EventPayload<E extends EventName> = z.output<Events[E]>;

/** Every event name, in declaration order. */
export const eventNames = Object.keys(events) as EventName[];
