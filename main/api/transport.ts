import { ApiError, asEnvelope, errorFromResponse, type ApiErrorKind } from './errors.js';
import { RedirectRefusedError, refuseRedirects, type HttpFetch } from './http.js';
import { contentDispositionFileName } from './content-disposition.js';
import { Limiter } from './limiter.js';
import type { SecretRegistry } from '../platform/secrets.js';
import { MAX_REDACTION_DEPTH, TooDeepError, redactSecretsDeep, redactServiceData } from './redact.js';
import { DEFAULT_RETRY, parseRetryAfter, withRetry, type RetryPolicy } from './retry.js';

/** Per-call options every operation accepts besides its AbortSignal. */
export interface CallOptions {
  /** Time allowed for the response (JSON: whole body; binary: until the headers), ms. */
  timeoutMs?: number;
  /** false: no retry; true: the client's policy; an object: the policy with these overrides. Default depends on the operation. */
  retry?: boolean | Partial<RetryPolicy>;
}

/** One attempt of one call, as reported to {@link TransportOptions.onAttempt}. */
export interface AttemptEvent {
  operation: string;
  attempt: number;
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** Failure kind ('error' for a failure that is not an ApiError, such as a keychain error), or null on success. */
  kind: ApiErrorKind | 'error' | null;
  ms: number;
}

/** Options of {@link Transport}. */
export interface TransportOptions {
  baseUrl: string;
  /** Returns the current API key; called for every attempt so a rotated key is picked up. */
  getKey: () => Promise<string>;
  fetch: HttpFetch;
  /** The app's secret registry: the key is added before it is sent, and every answer and log line is masked against it. */
  secrets: SecretRegistry;
  limiter?: Limiter;
  retry?: Partial<RetryPolicy>;
  /** Default timeout of JSON calls, ms (30 s). */
  timeoutMs?: number;
  /** Default time to the response headers of binary calls, ms (5 min: the service renders first). */
  binaryTimeoutMs?: number;
  /** Receives one line per attempt and retry; lines never contain the key. */
  log?: (line: string) => void;
  onAttempt?: (event: AttemptEvent) => void;
  /** Told after each finished call whether the service answered at all. */
  onReachability?: (reachable: boolean, detail?: string) => void;
}

/** A request as the operations layer describes it. */
export interface RequestSpec {
  method: string;
  /** Path below the base URL, path parameters already substituted. */
  path: string;
  query?: Record<string, string | string[] | undefined>;
  /** The exact JSON text to send; Content-Type application/json is set when present. */
  body?: string;
  /** Extra headers (header parameters of discovered operations). */
  headers?: Record<string, string>;
  /** Whether this operation retries when the caller does not say (false for calls that create things). */
  retryByDefault: boolean;
}

/** Successful answer of a binary operation. */
export type BinaryResult =
  | {
      kind: 'stream';
      status: number;
      /** The file; read it to the end or cancel it, since it holds a concurrency slot until then. */
      body: ReadableStream<Uint8Array>;
      /** File name from Content-Disposition, unsanitised (the downloads module sanitises it). */
      fileName: string | null;
      contentLength: number | null;
      contentType: string | null;
      headers: Headers;
    }
  | { kind: 'uploaded'; status: number; headers: Headers };

type Mode = 'json' | 'binary' | 'document';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_BINARY_TIMEOUT_MS = 300_000;

/**
 * Sends requests to the service: the API key on every call, JSON bodies, timeouts,
 * the caller's AbortSignal, the concurrency limiter, retry with backoff, and the
 * envelope parsed into data or a classified {@link ApiError}.
 */
export class Transport {
  readonly baseUrl: string;
  readonly limiter: Limiter;
  private readonly origin: string;
  private readonly opts: TransportOptions;
  private readonly fetch: HttpFetch;
  private readonly policy: RetryPolicy;
  // Fields the specification marks as the key; masked in every answer besides the ones named like a key.
  private keyFields: ReadonlySet<string> = new Set();

  /** Creates a transport for one base URL. */
  constructor(opts: TransportOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new ApiError('invalid', `Base URL "${opts.baseUrl}" is not an absolute URL; use e.g. https://service.example.com.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ApiError('invalid', `Base URL "${opts.baseUrl}" must use http or https.`);
    }
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.origin = url.origin;
    this.opts = opts;
    // Every request here carries the key: an injected fetch refuses redirects like the hosts' own.
    this.fetch = refuseRedirects(opts.fetch);
    this.limiter = opts.limiter ?? new Limiter();
    this.policy = { ...DEFAULT_RETRY, ...opts.retry };
  }

  /** Masks every API key main holds (this transport's included) out of `text`. */
  redact = (text: string): string => this.opts.secrets.redactText(text);

  private redactName(name: string | null): string | null {
    return name === null ? null : this.redact(name);
  }

  /** Sets the names of the fields the service's specification marks as the API key. */
  setKeyFields(names: Iterable<string>): void {
    this.keyFields = new Set(names);
  }

  /** Logs a line after masking keys. */
  log(line: string): void {
    this.opts.log?.(this.redact(line));
  }

  /** Calls an envelope operation and resolves with its Data. */
  json<T>(req: RequestSpec, signal?: AbortSignal, options: CallOptions = {}): Promise<T> {
    return this.call(req, 'json', signal, options) as Promise<T>;
  }

  /** Calls a binary operation: a stream on 200, 'uploaded' on 201, an ApiError otherwise. */
  binary(req: RequestSpec, signal?: AbortSignal, options: CallOptions = {}): Promise<BinaryResult> {
    return this.call(req, 'binary', signal, options) as Promise<BinaryResult>;
  }

  /** Fetches a plain JSON document (no envelope), such as the specification. */
  document(req: RequestSpec, signal?: AbortSignal, options: CallOptions = {}): Promise<unknown> {
    return this.call(req, 'document', signal, options);
  }

  private resolvePolicy(req: RequestSpec, options: CallOptions): RetryPolicy | null {
    const r = options.retry;
    if (r === false) return null;
    if (r === true) return this.policy;
    if (r && typeof r === 'object') return { ...this.policy, ...r };
    return req.retryByDefault ? this.policy : null;
  }

  private async call(req: RequestSpec, mode: Mode, signal: AbortSignal | undefined, options: CallOptions): Promise<unknown> {
    const operation = `${req.method.toUpperCase()} ${req.path}`;
    const policy = this.resolvePolicy(req, options);
    try {
      const result = await withRetry((attempt) => this.attempt(req, mode, operation, attempt, signal, options), policy, signal, ({ attempt, delayMs, error }) =>
        this.log(`${operation}: attempt ${attempt} failed (${error.kind}${error.status ? ` ${error.status}` : ''}); retrying in ${delayMs} ms`),
      );
      this.opts.onReachability?.(true);
      return result;
    } catch (e) {
      if (e instanceof ApiError && e.kind !== 'cancelled') {
        const unreachable = e.kind === 'transient' && e.status == null;
        this.opts.onReachability?.(!unreachable, unreachable ? e.message : undefined);
      }
      throw e;
    }
  }

  private async headers(req: RequestSpec, operation: string): Promise<Record<string, string>> {
    const raw = await this.opts.getKey();
    const key = typeof raw === 'string' ? raw.trim() : '';
    if (!key) throw new ApiError('auth', `No API key is set for this service; add one in Settings (${operation}).`, { operation });
    // Registered before it is sent, so whatever the service echoes is masked.
    this.opts.secrets.add(raw);
    // Checked here because fetch's own error for a bad header value quotes the value, i.e. the key.
    if (/[^\t\x20-\x7e\x80-\xff]/.test(key)) {
      throw new ApiError('auth', `The API key contains characters that cannot be sent in an HTTP header (such as a line break); enter it again (${operation}).`, { operation });
    }
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers, 'x-api-key': key };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    return headers;
  }

  private url(req: RequestSpec): string {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) qs.append(k, item);
    }
    const q = qs.toString();
    return `${this.baseUrl}${req.path}${q ? `?${q}` : ''}`;
  }

  private async attempt(req: RequestSpec, mode: Mode, operation: string, attempt: number, signal: AbortSignal | undefined, options: CallOptions): Promise<unknown> {
    const release = await this.limiter.acquire(signal);
    const started = performance.now();
    const controller = new AbortController();
    const timeoutMs = options.timeoutMs ?? (mode === 'binary' ? this.opts.binaryTimeoutMs ?? DEFAULT_BINARY_TIMEOUT_MS : this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    let cleaned = false;
    const cleanup = () => {
      if (cleaned) return;
      cleaned = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      release();
    };
    let status: number | null = null;
    let keepSlot = false;
    let failure: ApiErrorKind | 'error' | null = null;
    const fail = (e: unknown) => this.networkError(e, operation, signal, timedOut, timeoutMs);
    try {
      const headers = await this.headers(req, operation);
      let res: Response;
      try {
        res = await this.fetch(this.url(req), {
          method: req.method.toUpperCase(),
          headers,
          body: req.body,
          signal: controller.signal,
        });
      } catch (e) {
        if (e instanceof RedirectRefusedError) {
          status = e.status;
          throw new ApiError('invalid', this.redact(`The service redirected ${operation} (HTTP ${e.status}${e.location ? ` to ${e.location}` : ''}); set the base URL to the final address (the API key is never sent across redirects).`), { status: e.status, operation });
        }
        throw fail(e);
      }
      status = res.status;
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.policy.now());
      const isJson = /\bjson\b/i.test(res.headers.get('content-type') ?? '');
      if (mode === 'binary' && res.ok) {
        if (status === 201 || (res.status !== 200 && !isJson)) {
          await res.arrayBuffer().catch(() => undefined);
          return { kind: 'uploaded', status, headers: res.headers } satisfies BinaryResult;
        }
        if (!isJson) {
          // The body outlives this function: keep the slot and the caller's abort link until it ends.
          clearTimeout(timer);
          keepSlot = true;
          return {
            kind: 'stream',
            status,
            body: guardedStream(res.body, cleanup, (e) => this.bodyError(e, operation, signal)),
            fileName: this.redactName(contentDispositionFileName(res.headers.get('content-disposition'))),
            contentLength: contentLength(res.headers.get('content-length')),
            contentType: res.headers.get('content-type'),
            headers: res.headers,
          } satisfies BinaryResult;
        }
      }
      let text: string;
      try {
        text = await res.text();
      } catch (e) {
        throw fail(e);
      }
      let parsed: unknown = undefined;
      let parsedOk = false;
      try {
        parsed = text ? JSON.parse(text) : null;
        parsedOk = true;
      } catch {
        parsedOk = false;
      }
      const envelope = asEnvelope(parsed);
      if (!res.ok || (mode !== 'document' && envelope?.Succeeded === false)) {
        throw errorFromResponse(status, envelope, { operation, retryAfterMs, redact: this.redact });
      }
      if (!parsedOk) {
        // A cut-off or mangled body (e.g. from a proxy) may well be fine on the next try.
        throw new ApiError('transient', `The service sent a response that is not valid JSON (HTTP ${status} from ${operation}).`, { status, operation });
      }
      if (mode === 'binary') {
        throw new ApiError('invalid', `The service answered ${operation} with JSON instead of a file (HTTP ${status}).`, { status, operation });
      }
      // The service's answer leaves the transport only after every key in it is masked.
      try {
        if (mode === 'document') return redactSecretsDeep(parsed, this.opts.secrets);
        return redactServiceData(envelope ? envelope.Data ?? null : parsed, this.opts.secrets, this.keyFields);
      } catch (e) {
        if (!(e instanceof TooDeepError)) throw e;
        // Refused whole: a value the masking cannot walk could hide a key.
        throw new ApiError('invalid', `The service answered ${operation} with data nested more than ${MAX_REDACTION_DEPTH} levels deep, too deep to check for API keys; Swath refused the answer.`, { status, operation });
      }
    } catch (e) {
      failure = e instanceof ApiError ? e.kind : 'error';
      throw e;
    } finally {
      if (!keepSlot) cleanup();
      const ms = Math.round(performance.now() - started);
      this.log(`${operation} -> ${status ?? failure ?? '?'}${failure && status ? ` (${failure})` : ''} in ${ms} ms${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      this.opts.onAttempt?.({ operation, attempt, status, kind: failure, ms });
    }
  }

  private bodyError(e: unknown, operation: string, signal: AbortSignal | undefined): ApiError {
    if (e instanceof ApiError) return e;
    if (signal?.aborted) return new ApiError('cancelled', `The download was cancelled (${operation}).`, { operation });
    return new ApiError('transient', this.redact(`The download from ${operation} was interrupted: ${describeCause(e)}.`), { operation });
  }

  private networkError(e: unknown, operation: string, signal: AbortSignal | undefined, timedOut: boolean, timeoutMs: number): ApiError {
    if (e instanceof ApiError) return e;
    if (signal?.aborted) return new ApiError('cancelled', `The request was cancelled (${operation}).`, { operation });
    if (timedOut) {
      return new ApiError('transient', `The service did not answer ${operation} within ${Math.round(timeoutMs / 100) / 10} s.`, { operation });
    }
    return new ApiError('transient', this.redact(`Could not reach the service at ${this.origin} for ${operation}: ${describeCause(e)}.`), { operation });
  }
}

function describeCause(e: unknown): string {
  const err = e as { message?: unknown; code?: unknown; cause?: { code?: unknown; message?: unknown } };
  const cause = err?.cause;
  const code = (typeof cause?.code === 'string' && cause.code) || (typeof err?.code === 'string' && err.code) || '';
  const message = (typeof cause?.message === 'string' && cause.message) || (typeof err?.message === 'string' && err.message) || 'network error';
  return code && !message.includes(code) ? `${code} ${message}` : message;
}

/**
 * Wraps a response body so the limiter slot is released exactly once when the
 * body ends, fails or is cancelled, and read errors become ApiErrors.
 */
function guardedStream(body: ReadableStream<Uint8Array> | null, finish: () => void, mapError: (e: unknown) => ApiError): ReadableStream<Uint8Array> {
  if (!body) {
    finish();
    return new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  }
  const reader = body.getReader();
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    finish();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const r = await reader.read();
          if (r.done) {
            end();
            controller.close();
          } else {
            controller.enqueue(r.value);
          }
        } catch (e) {
          const mapped = mapError(e);
          end();
          controller.error(mapped);
        }
      },
      async cancel(reason) {
        end();
        await reader.cancel(reason).catch(() => undefined);
      },
    },
    // Read ahead a few MB so the socket keeps flowing while the consumer writes to disk; bounded, so memory stays flat.
    new ByteLengthQueuingStrategy({ highWaterMark: 4 * 1024 * 1024 }),
  );
}

function contentLength(header: string | null): number | null {
  if (header == null || !/^\d+$/.test(header.trim())) return null;
  return Number(header.trim());
}
