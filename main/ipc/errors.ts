import type { ErrorKind, IpcError } from '../../preload/contract';

/** Thrown by handlers (and the services they call) to report a specific error kind instead of a generic io failure. */
export class HandlerError extends Error {
  /** Builds an error whose kind and field reasons reach the renderer unchanged. */
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly fields?: Record<string, string[]>,
  ) {
    super(message);
    this.name = 'HandlerError';
  }
}

/** Turns anything a handler threw into an {@link IpcError}; unknown failures are `io`. */
export function toIpcError(error: unknown): IpcError {
  if (error instanceof HandlerError) {
    return error.fields ? { kind: error.kind, message: error.message, fields: error.fields } : { kind: error.kind, message: error.message };
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return { kind: 'cancelled', message: error.message || 'The operation was cancelled.' };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'io', message: message || 'Unexpected failure in the main process.' };
}
