import { AppError, fieldsOf, type FieldErrors } from '../../common/errors.js';

/** Property name to list of reasons: the shape of Data on a service validation failure. */
export type { FieldErrors };

/** What went wrong with a service call; callers branch on this, never on messages. */
export type ApiErrorKind =
  | 'validation'
  | 'auth'
  | 'not-found'
  | 'rate-limited'
  | 'transient'
  | 'credit'
  | 'coverage'
  | 'limit'
  | 'invalid'
  | 'cancelled';

/** Error codes of the service (contract section 7 and service-facts.md). */
export const ServiceCodes = {
  validation: 992,
  invalidRequest: 993,
  noCredit: 994,
  noImagery: 1002,
  tooManyRequests: 1003,
  areaTooLarge: 1004,
  tooManyBands: 1005,
  notCovered: 1006,
} as const;

/** Details carried by an {@link ApiError}. */
export interface ApiErrorInit {
  status?: number | null;
  code?: number | null;
  fields?: FieldErrors;
  retryAfterMs?: number | null;
  /** "METHOD /path" of the call, for logs and messages. */
  operation?: string;
}

/** A failed service call, classified; its message never contains the API key. */
export class ApiError extends AppError<ApiErrorKind> {
  override readonly name = 'ApiError';
  declare readonly retryAfterMs: number | null;
  readonly status: number | null;
  readonly code: number | null;
  readonly operation: string | undefined;

  /** Builds an error of the given kind; `message` must already be redacted. */
  constructor(kind: ApiErrorKind, message: string, init: ApiErrorInit = {}) {
    super(kind, message, { fields: init.fields, retryAfterMs: init.retryAfterMs ?? null });
    this.status = init.status ?? null;
    this.code = init.code ?? null;
    this.operation = init.operation;
  }

  /** Whether retrying the same request later may succeed. */
  get retryable(): boolean {
    return this.kind === 'transient' || this.kind === 'rate-limited';
  }
}

/** A client-side validation failure in the service's property -> reasons shape. */
export function validationFailure(fields: FieldErrors, operation?: string): ApiError {
  const names = Object.keys(fields);
  const first = names[0] ? `${names[0]}: ${fields[names[0]]![0]}` : '';
  const more = names.length > 1 ? ` (and ${names.length - 1} more field${names.length > 2 ? 's' : ''})` : '';
  return new ApiError('validation', `One or more validation errors occurred. ${first}${more}`.trim(), { fields, code: ServiceCodes.validation, operation });
}

/** The parsed JSON envelope of a response, when the body was one. */
export interface Envelope {
  Data?: unknown;
  Succeeded?: boolean;
  Error?: { Message?: unknown; Code?: unknown } | null;
}

/** Reads the envelope out of a parsed body, or null when the body is not an envelope. */
export function asEnvelope(body: unknown): Envelope | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const o = body as Record<string, unknown>;
  if (!('Succeeded' in o) && !('Error' in o) && !('Data' in o)) return null;
  return o as Envelope;
}

/** The property -> reasons map of a failure envelope, when Data has that shape. */
export { fieldsOf };

/**
 * Classifies a failed response. Status decides first for the classes whose
 * handling does not depend on the code (auth, 404, 429, 5xx); the code then
 * separates the business failures the service reports as 400s.
 */
export function classifyFailure(status: number, code: number | null, hasFields: boolean): ApiErrorKind {
  if (status >= 500) return 'transient';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not-found';
  if (status === 429 || code === ServiceCodes.tooManyRequests) return 'rate-limited';
  switch (code) {
    case ServiceCodes.validation: return 'validation';
    case ServiceCodes.noCredit: return 'credit';
    case ServiceCodes.noImagery:
    case ServiceCodes.notCovered: return 'coverage';
    case ServiceCodes.areaTooLarge:
    case ServiceCodes.tooManyBands: return 'limit';
    default: break;
  }
  // A 400 with a reasons map but no code is still a validation failure in all but name.
  if (status === 400 && code == null && hasFields) return 'validation';
  return 'invalid';
}

const GENERIC: Record<ApiErrorKind, string> = {
  validation: 'The service refused the request: one or more fields are invalid.',
  auth: 'The service rejected the API key (invalid, revoked, expired or out of scope).',
  'not-found': 'The service has no such operation or identifier.',
  'rate-limited': 'The service asked to slow down (too many requests).',
  transient: 'The service is temporarily unavailable.',
  credit: 'Not enough credit for this request.',
  coverage: 'No imagery covers this area and date.',
  limit: 'The request exceeds an account limit.',
  invalid: 'The service refused the request.',
  cancelled: 'The request was cancelled.',
};

/** Builds the ApiError of a non-success response from its status, envelope and headers. */
export function errorFromResponse(
  status: number,
  envelope: Envelope | null,
  init: { operation: string; retryAfterMs: number | null; redact: (s: string) => string },
): ApiError {
  const rawCode = envelope?.Error?.Code;
  const code = typeof rawCode === 'number' && Number.isFinite(rawCode) ? rawCode : null;
  const fields = redactFields(fieldsOf(envelope?.Data), init.redact);
  const kind = classifyFailure(status, code, fields !== undefined);
  const serviceMessage = typeof envelope?.Error?.Message === 'string' && envelope.Error.Message.trim() ? envelope.Error.Message.trim() : null;
  const base = serviceMessage ?? GENERIC[kind];
  const message = init.redact(`${base} (HTTP ${status}${code != null ? `, code ${code}` : ''} from ${init.operation})`);
  return new ApiError(kind, message, { status, code, fields, retryAfterMs: init.retryAfterMs, operation: init.operation });
}

function redactFields(fields: FieldErrors | undefined, redact: (s: string) => string): FieldErrors | undefined {
  if (!fields) return undefined;
  const out: FieldErrors = {};
  for (const [k, v] of Object.entries(fields)) out[redact(k)] = v.map(redact);
  return out;
}
