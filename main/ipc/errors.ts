import { errorKinds, type ErrorKind, type IpcError } from '../../preload/contract/errors';

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
  // Errors of other main modules (the service client) know their own mapping.
  if (error && typeof error === 'object' && typeof (error as { toIpcError?: unknown }).toIpcError === 'function') {
    return (error as { toIpcError(): IpcError }).toIpcError();
  }
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return error.name === 'AbortError'
      ? { kind: 'cancelled', message: 'The operation was cancelled.' }
      : { kind: 'transient', message: 'The service did not answer in time.' };
  }
  // HandlerError, and errors of other modules (e.g. the keychain), carry an IPC kind already.
  if (error && typeof error === 'object' && errorKinds.includes((error as { kind?: unknown }).kind as ErrorKind)) {
    const x = error as { kind: ErrorKind; message?: unknown; fields?: unknown };
    const message = typeof x.message === 'string' && x.message ? x.message : 'The operation failed.';
    const fields = fieldsOf(x.fields);
    return fields ? { kind: x.kind, message, fields } : { kind: x.kind, message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'io', message: message || 'Unexpected failure in the main process.' };
}

/** The property -> reasons map in a value (a service's validation Data, or an error's fields), when it has that shape. */
export function fieldsOf(data: unknown): Record<string, string[]> | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v as string[];
    else if (typeof v === 'string') out[k] = [v];
    else return undefined;
  }
  return Object.keys(out).length ? out : undefined;
}
