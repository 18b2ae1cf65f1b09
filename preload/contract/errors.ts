/**
 * Error values that cross the IPC boundary. Main never lets an exception cross
 * the bridge: every channel answers with a {@link Result}.
 */

import type { ErrorKind } from '../../common/errors';

export { errorKinds, type ErrorKind } from '../../common/errors';

/** A failure as the renderer sees it; `fields` maps a property path to its reasons, as the service does. */
export interface IpcError {
  kind: ErrorKind;
  message: string;
  fields?: Record<string, string[]>;
}

/** The answer of every channel: data on success, an {@link IpcError} otherwise. */
export type Result<T> = { ok: true; data: T } | { ok: false; error: IpcError };

/** Wraps data in a successful {@link Result}. */
export function ok<T>(data: T): Result<T> {
  return { ok: true, data };
}

/** Builds a failed {@link Result}. */
export function fail(kind: ErrorKind, message: string, fields?: Record<string, string[]>): Result<never> {
  return { ok: false, error: fields ? { kind, message, fields } : { kind, message } };
}

/** How a cancelled call answers. */
export const CANCELLED_ERROR: IpcError = { kind: 'cancelled', message: 'The operation was cancelled.' };
