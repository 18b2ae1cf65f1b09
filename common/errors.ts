/**
 * The one error family of the app. Every module that reports a failure the user should see throws
 * an {@link AppError} (or a subclass: ApiError, KeychainError, DownloadError, PlanError,
 * BatchPartError); main/ipc maps them onto the contract's error values with `instanceof`.
 */

/** Every kind of failure a channel may report; the renderer branches on these, never on messages. */
export const errorKinds = [
  'validation',
  'auth',
  'not-found',
  'rate-limited',
  'transient',
  'keychain',
  'io',
  'cancelled',
] as const;

/** One of {@link errorKinds}. */
export type ErrorKind = (typeof errorKinds)[number];

/** Property name to list of reasons: the shape the service (and the UI) use for field errors. */
export type FieldErrors = Record<string, string[]>;

/** Details of an {@link AppError}. */
export interface AppErrorInit {
  fields?: FieldErrors;
  /** How long to wait before trying again, when the failure says (Retry-After). */
  retryAfterMs?: number | null;
  cause?: unknown;
}

/**
 * A failure with a machine-readable kind: one of {@link errorKinds}, or a finer kind of a module
 * (ApiError's credit or coverage) that main/ipc maps onto one. Messages never hold secrets.
 */
export class AppError<K extends string = string> extends Error {
  readonly kind: K;
  readonly fields: FieldErrors | undefined;
  readonly retryAfterMs: number | null | undefined;

  /** Builds an error of `kind`; `init.cause` is kept as the standard Error cause. */
  constructor(kind: K, message: string, init: AppErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.fields = init.fields;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** Whether `kind` is one of the contract's {@link errorKinds}. */
export function isErrorKind(kind: unknown): kind is ErrorKind {
  return (errorKinds as readonly unknown[]).includes(kind);
}

/** The property -> reasons map in a value (a service's validation Data, or an error's fields), when it has that shape. */
export function fieldsOf(data: unknown): FieldErrors | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const out: FieldErrors = {};
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v as string[];
    else if (typeof v === 'string') out[k] = [v];
    else return undefined;
  }
  return Object.keys(out).length ? out : undefined;
}
