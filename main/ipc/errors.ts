import { AppError, isErrorKind, type ErrorKind } from '../../common/errors.js';
import type { IpcError } from '../../preload/contract/errors';
import { ApiError, type ApiErrorKind } from '../api/errors.js';

export { fieldsOf } from '../../common/errors.js';

/** How each service-client failure shows in the UI: business refusals (credit, coverage, limits) sit next to the form, like validation. */
const API_KIND: Record<ApiErrorKind, ErrorKind> = {
  validation: 'validation',
  auth: 'auth',
  'not-found': 'not-found',
  'rate-limited': 'rate-limited',
  transient: 'transient',
  credit: 'validation',
  coverage: 'validation',
  limit: 'validation',
  invalid: 'validation',
  cancelled: 'cancelled',
};

function value(kind: ErrorKind, message: string, fields?: Record<string, string[]>): IpcError {
  return fields ? { kind, message, fields } : { kind, message };
}

/**
 * Turns anything a handler threw into an {@link IpcError}, by class: ApiError by its own table,
 * any other AppError by its kind (an unknown kind is io), aborts as cancelled, timeouts as
 * transient, everything else as io.
 */
export function toIpcError(error: unknown): IpcError {
  if (error instanceof ApiError) return value(API_KIND[error.kind], error.message, error.fields);
  if (error instanceof AppError) {
    const message = error.message || 'The operation failed.';
    return value(isErrorKind(error.kind) ? error.kind : 'io', message, error.fields);
  }
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return error.name === 'AbortError'
      ? { kind: 'cancelled', message: 'The operation was cancelled.' }
      : { kind: 'transient', message: 'The service did not answer in time.' };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'io', message: message || 'Unexpected failure in the main process.' };
}
