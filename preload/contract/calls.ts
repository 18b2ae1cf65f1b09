import { z } from 'zod';

/**
 * Cancellation across the bridge. The renderer numbers the calls it may want to
 * cancel (`callId`, passed with the request); a `cancel` message naming that id
 * aborts the handler's AbortSignal in main. Ids are scoped to the window (or
 * WebSocket connection) that sent them, so no page can cancel another's calls.
 */

/** A call's id: a positive safe integer, unique among the sender's running calls. */
export const callIdSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** What a caller may pass next to a request. */
export const callOptionsSchema = z.strictObject({ callId: callIdSchema.optional() });

/** The message that cancels one of the sender's own running calls. */
export const cancelMessageSchema = z.strictObject({ callId: callIdSchema });

/** The one-way IPC channel that carries {@link cancelMessageSchema} (not a request/response channel). */
export const CANCEL_CHANNEL = 'bridge:cancel';

/** Options of one bridge call. */
export type CallOptions = z.input<typeof callOptionsSchema>;

/** Cancels a running call by the id it was given; unknown or finished ids are ignored. */
export type CancelCall = (callId: number) => void;

