/**
 * Shapes shared by the download queue, the streaming code and the API client that feeds them.
 * The client implements {@link BinarySource}; nothing here knows about HTTP or keys.
 */
import { AppError } from '../../common/errors.js';

import type { DownloadKind } from '../library/download-sink.js';
import type { JobPass } from '../spend/guard.js';

// The kinds and the secret stripping are the library's, so the dependency runs downloads -> library only.
export { DOWNLOAD_KINDS, withoutSecrets, type DownloadKind } from '../library/download-sink.js';
export type { JobPass } from '../spend/guard.js';

/** A 200 answer whose body is the file; fileName is the unsanitised name from Content-Disposition, if any. */
export interface BinaryResult {
  kind: 'stream';
  body: ReadableStream<Uint8Array>;
  fileName: string | null;
  contentLength: number | null;
}

/** A 201 answer: the service PUT the file to the request's UploadUrl, so there is nothing to stream. */
export interface UploadedResult {
  kind: 'uploaded';
}

/** What the API client offers the queue: one POST of a process operation, body streamed back. */
export interface BinarySource {
  /**
   * Starts the request; rejects with an error carrying `kind` (see {@link DownloadErrorKind}) when the
   * service refuses it. `profileId`: the profile the job was cleared under, whose client and key send
   * it; a source that cannot send under that profile (it is not the active one) rejects before sending.
   */
  fetchBinary(kind: DownloadKind, body: Record<string, unknown>, signal: AbortSignal, profileId?: string): Promise<BinaryResult | UploadedResult>;
}

/** Failure kinds, aligned with the IPC contract's error kinds plus what the client may add. */
export type DownloadErrorKind =
  | 'validation'
  | 'auth'
  | 'not-found'
  | 'rate-limited'
  | 'transient'
  | 'io'
  | 'cancelled'
  | (string & {});

/** An error with a machine-readable kind; retryAfterMs is honoured by the queue's backoff when present. */
export class DownloadError extends AppError<DownloadErrorKind> {
  /** Server-suggested wait before the next attempt, ms. */
  declare readonly retryAfterMs: number | undefined;

  /** Creates an error of the given kind. */
  constructor(
    kind: DownloadErrorKind,
    message: string,
    options?: { cause?: unknown; retryAfterMs?: number; status?: number; mayHaveCharged?: boolean },
  ) {
    super(kind, message, { cause: options?.cause, retryAfterMs: options?.retryAfterMs });
    this.name = 'DownloadError';
    if (options?.status !== undefined) this.status = options.status;
    if (options?.mayHaveCharged) this.mayHaveCharged = true;
  }

  /** The HTTP status the service answered with, when it answered. */
  declare readonly status: number | undefined;
  /** Set where the failing error alone would look harmless but the service may have acted (another part of a batch was out). */
  declare readonly mayHaveCharged: boolean | undefined;
}

/** The kind carried by any thrown value, or null when it has none. */
export function errorKind(e: unknown): string | null {
  if (e && typeof e === 'object' && 'kind' in e && typeof (e as { kind: unknown }).kind === 'string') {
    return (e as { kind: string }).kind;
  }
  return null;
}

/** The message of any thrown value. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (e && typeof e === 'object' && 'message' in e && typeof (e as { message: unknown }).message === 'string') {
    return (e as { message: string }).message;
  }
  return String(e);
}

/**
 * Whether the service surely did nothing with a paid request that failed, so sending it again cannot
 * pay twice: it refused the connection, or answered 429 (too many requests) or 503 (unavailable)
 * before any body: the contract's refusals to start. Anything else (a reset, a timeout, another 5xx,
 * a 200 whose body broke off) may come after the service rendered and charged.
 */
export function serviceDidNothing(e: unknown): boolean {
  if ((e as { mayHaveCharged?: unknown } | null)?.mayHaveCharged === true) return false;
  for (let c: unknown = e, depth = 0; c && typeof c === 'object' && depth < 8; c = (c as { cause?: unknown }).cause, depth++) {
    const o = c as { kind?: unknown; status?: unknown; code?: unknown };
    if (o.status === 429 || o.status === 503 || o.kind === 'rate-limited') return true;
    if (o.code === 'ECONNREFUSED') return true;
    // The API client's "could not reach" error keeps the socket's code only in its message (Node's, or Chromium's under Electron).
    if (typeof o.status !== 'number' && o.kind === 'transient' && c instanceof Error && /^Could not reach the service\b.*\b(ECONNREFUSED|ERR_CONNECTION_REFUSED)\b/.test(c.message)) return true;
    if (typeof o.status === 'number') return false;
  }
  return false;
}

/** Lifecycle of a job; done, failed and cancelled are final until retried. */
export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/** One download job as persisted and as reported in events. */
export interface DownloadJob {
  id: string;
  kind: DownloadKind;
  /** The process body sent to the service; never contains the API key. */
  request: Record<string, unknown>;
  targetDir: string;
  state: JobState;
  /** A human-readable note on the last change: why it failed, was cancelled or re-queued, or is being retried. */
  reason?: string;
  /** Error kind of the last failure, so the UI can branch without parsing reason. */
  errorKind?: string;
  /** Bytes written in the current (or last) attempt. */
  bytes: number;
  /** Expected size from Content-Length, or null when unknown. */
  total: number | null;
  attempts: number;
  /** Final path once done. */
  file?: string;
  /** Library entry id once done. */
  libraryId?: string;
  /** The `.part` file while a transfer is in progress; kept so a crash can be cleaned up on the next start. */
  partPath?: string;
  /** A large job run as parts (split by the account's limits) or as one download per date; absent for a single download. */
  batch?: BatchSpec;
  /** The spend guard's clearance, stored with the job: the profile it is charged to and sent under, main's estimate, when. */
  pass?: JobPass;
  /** Set while a paid POST of the job is out (the service may act on it); cleared when it surely did nothing. */
  sending?: boolean;
  /** Attempts the service answered with the file, i.e. charged (each one a ledger line). */
  charged?: number;
  /**
   * Failed after the service answered it or may have acted on it: sending it again may pay twice,
   * so only the analyst does (Retry); a watch stops for the analyst instead of buying the date again.
   */
  mayHaveCharged?: boolean;
  /** Every file a batch produced (the first is `file`). */
  files?: string[];
  /** ISO 8601 timestamps. */
  createdAt: string;
  updatedAt: string;
}

/** What the queue asks of the spend guard around each paid POST of a job (main/spend/guard.ts implements it). */
export interface JobSpend {
  /**
   * Before a job's first POST of a run: resolves with the pass it is sent under (its own of this run,
   * or one decided again for a job brought back at start); rejects with the reason, and nothing is sent.
   */
  clearJob(job: DownloadJob, signal: AbortSignal): Promise<JobPass>;
  /** The service answered an attempt with the file (or uploaded it): it charged; written to the ledger. */
  jobCharged(job: DownloadJob): Promise<void>;
}

/** Throttled progress of a running job. */
export interface ProgressEvent {
  jobId: string;
  bytes: number;
  total: number | null;
  rateBytesPerSec: number;
  etaSec: number | null;
}


/** What a batch job needs to re-plan itself deterministically when it (re)starts: no plan is persisted. */
export interface BatchSpec {
  type: 'split' | 'series';
  /** The account limits the parts must fit. */
  limits: { maxCompositeAreaKm2: number; maxTotalBands: number };
  /** For a series: the dates to download, ascending. */
  dates?: string[];
  /** Parts per date, for display. */
  parts: number;
}

/** A produced file of a batch job. */
export interface BatchOutput {
  path: string;
  bytes: number;
  /** Null: the library hashes it in the background. */
  sha256: string | null;
  /** The request this file answers (a time series' date); absent: the job's own. */
  request?: Record<string, unknown>;
}

/** Runs a batch job (plan, download parts, mosaic or VRT); injected so the queue knows nothing about planning. */
export type BatchJobRunner = (
  job: DownloadJob,
  signal: AbortSignal,
  onProgress: (bytes: number, total: number | null) => void,
  /** A part's POST was answered with its file: the service charged it. */
  onCharged?: () => Promise<void>,
) => Promise<{ outputs: BatchOutput[]; note?: string }>;
