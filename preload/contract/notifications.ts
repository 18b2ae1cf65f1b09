import { z } from 'zod';
import { noRequest } from './channel';

/** Schemas of the notifications' channels: preferences, a notification, and one the window raises. */

/** Which notifications are shown. */
export const notificationPrefsSchema = z.object({
  watchDownloaded: z.boolean(),
  watchAttention: z.boolean(),
  orderStatus: z.boolean(),
  orderDeadline: z.boolean(),
  /** Fields of a parcel set attached to a watch changed past its threshold on a new date. */
  fieldChange: z.boolean(),
});

/** What a notification opens when clicked. */
export const notificationTargetSchema = z.object({
  panel: z.string().max(40),
  watchId: z.string().optional(),
  libraryId: z.string().optional(),
  orderId: z.string().optional(),
});

/** One notification as the window receives it. */
export const notificationSchema = z.object({
  id: z.string(),
  kind: z.enum(['watchDownloaded', 'watchAttention', 'orderStatus', 'orderDeadline', 'fieldChange']),
  title: z.string(),
  body: z.string(),
  target: notificationTargetSchema,
  /** The host already showed it as a native OS notification; the window need not show its own. */
  native: z.boolean(),
  /** The analyst clicked the native notification: open its target now. */
  open: z.boolean().optional(),
});

/** A notification the window raises (order status and deadline notices it detects from the orders list). */
export const notifyRequestSchema = z.strictObject({
  kind: z.enum(['orderStatus', 'orderDeadline']),
  title: z.string().min(1).max(200),
  body: z.string().max(1000),
  target: z.strictObject({ panel: z.string().max(40), orderId: z.string().max(200).optional() }),
});

/** The notifications' channels (spread into the contract's channel map). */
export const notificationChannels = {
  /** Which notifications are shown. */
  'notifications:prefs': { request: noRequest, response: notificationPrefsSchema },
  /** Switches notifications on or off. */
  'notifications:set-prefs': { request: notificationPrefsSchema.partial().strict(), response: notificationPrefsSchema },
  /** Raises a notification the window detected (order status change, cancellation deadline). */
  'notifications:show': { request: notifyRequestSchema, response: z.object({ shown: z.boolean() }) },
} as const;

/** The notifications' events (spread into the contract's event map). */
export const notificationEvents = {
  /** A notification to show (in-app, and natively where the host could not). */
  notification: notificationSchema,
} as const;
