import { reactive } from 'vue';
import type { EventName, EventPayload, IpcError, Result, SwathApi } from '../../../preload/contract';
import { CANCELLED_ERROR } from '../../../preload/contract/errors';
import { getBridge } from './bridge';
import { routeAuth } from './lib/request';

/**
 * How a store asks main: the one module besides the bridge that calls it (the layer table lets no
 * store import the bridge). Every call is a {@link Call} run either by a reactive {@link createRequest}
 * (loading, error, busy note, data) or once by {@link ask}; both share the same routing:
 * 'rate-limited' is retried with backoff (jittered, so panels do not retry in lockstep), 'auth' goes
 * to the key dialog, a thrown error becomes an 'io' failure, and cancelling fires the call's signal:
 * its answer is ignored and, where the request says so, main stops its work. {@link keyedRequests}
 * keeps one state per action key (a profile's, a job's), {@link createErrorLine} one error line that
 * several calls share. Views show the outcome (`isRetryable`, `reasonsFor` in lib/request). Main's
 * events are followed with {@link listen}.
 */

/** One bridge call: `bridge` is the preload's API, its channel calls tied to `signal` when the request cancels in main. */
export type Call<T> = (bridge: SwathApi, signal: AbortSignal) => Promise<Result<T>>;

/** Options of {@link createRequest} and {@link ask}. */
export interface RequestOptions {
  /** Waits before each automatic retry of a rate-limited call; its length is the number of retries. */
  rateLimitDelaysMs?: number[];
  /** Called with an 'auth' failure instead of the app's handler (which opens the key dialog). */
  onAuth?: (error: IpcError) => void;
  /**
   * Ties the call to the request's signal: cancelling or superseding it stops the work in main (on
   * the channels that take a signal: searches, estimates, previews, a spec-built read). Without it
   * a sent call runs to its end in main and only its answer is ignored, as a purchase must.
   */
  cancelsInMain?: boolean;
}

/** Reactive state of a {@link createRequest} call. */
export interface RequestState<T> {
  loading: boolean;
  error: IpcError | null;
  /** "Service busy, retrying in 4 s" while a rate-limited call waits to be retried. */
  busy: string | null;
  data: T | null;
  /** When the last successful answer arrived (ms since epoch). */
  at: number | null;
  /** Runs a call (superseding any running one, which is cancelled) and returns its final result. */
  run(call: Call<T>): Promise<Result<T>>;
  /** Runs the last call again. */
  retry(): Promise<Result<T>> | null;
  /** Cancels the running call: its signal fires (main stops its work) and its answer is ignored. */
  cancel(): void;
  /** Clears data and error. */
  reset(): void;
  /** Field errors of the last failure ({} when none). */
  readonly fields: Record<string, string[]>;
}

const DEFAULT_DELAYS_MS = [2000, 4000, 8000];
const CANCELLED: Result<never> = { ok: false, error: CANCELLED_ERROR };

/** Waits `ms`, or less when `signal` fires first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs a call to its final result with the shared routing; `onBusy` hears the busy note (null when
 * it ends). A fired signal answers 'cancelled' whatever the call answers.
 */
async function attempt<T>(call: Call<T>, signal: AbortSignal, options: RequestOptions, onBusy: (note: string | null) => void): Promise<Result<T>> {
  const delays = options.rateLimitDelaysMs ?? DEFAULT_DELAYS_MS;
  for (let tries = 0; ; tries++) {
    let result: Result<T>;
    try {
      result = await call(options.cancelsInMain ? getBridge(signal) : getBridge(), signal);
    } catch (e) {
      result = { ok: false, error: { kind: 'io', message: (e as Error).message || String(e) } };
    }
    if (signal.aborted) return CANCELLED;
    if (!result.ok && result.error.kind === 'rate-limited' && tries < delays.length) {
      const wait = Math.round(delays[tries]! * (0.8 + Math.random() * 0.4));
      onBusy(`Service busy, retrying in ${Math.max(1, Math.round(wait / 1000))} s…`);
      await pause(wait, signal);
      if (signal.aborted) return CANCELLED;
      continue;
    }
    onBusy(null);
    if (!result.ok && result.error.kind === 'auth') (options.onAuth ?? routeAuth)(result.error);
    return result;
  }
}

/**
 * Runs one call with the shared routing, for actions whose outcome the caller handles itself
 * ("delete", "rename", a page of a list). With `signal`, its firing answers 'cancelled' at once and
 * stops the call's work in main.
 */
export function ask<T>(call: Call<T>, options: RequestOptions & { signal?: AbortSignal } = {}): Promise<Result<T>> {
  const signal = options.signal ?? new AbortController().signal;
  if (signal.aborted) return Promise.resolve(CANCELLED);
  return attempt(call, signal, { ...options, cancelsInMain: !!options.signal }, () => undefined);
}

/** Creates the reactive state of one kind of call. */
export function createRequest<T>(options: RequestOptions = {}): RequestState<T> {
  let last: Call<T> | null = null;
  let controller: AbortController | null = null;
  /** Forgets the running call and fires its signal. */
  const drop = (): void => {
    controller?.abort();
    controller = null;
  };

  const state = reactive({
    loading: false,
    error: null as IpcError | null,
    busy: null as string | null,
    data: null as T | null,
    at: null as number | null,
    get fields(): Record<string, string[]> {
      return state.error?.fields ?? {};
    },
    async run(call: Call<T>): Promise<Result<T>> {
      last = call;
      drop();
      const ac = (controller = new AbortController());
      state.loading = true;
      state.error = null;
      state.busy = null;
      const result = await attempt(call, ac.signal, options, (note) => {
        if (!ac.signal.aborted) state.busy = note;
      });
      if (ac.signal.aborted) return CANCELLED;
      controller = null;
      if (result.ok) {
        state.data = result.data as never;
        state.at = Date.now();
      } else state.error = result.error;
      state.loading = false;
      return result;
    },
    retry(): Promise<Result<T>> | null {
      return last ? state.run(last) : null;
    },
    cancel(): void {
      drop();
      state.loading = false;
      state.busy = null;
    },
    reset(): void {
      drop();
      state.loading = false;
      state.busy = null;
      state.error = null;
      state.data = null;
      state.at = null;
    },
  });
  return state as RequestState<T>;
}

/** Several calls that share one error line (a panel's message): the last failure, until a call succeeds. */
export interface ErrorLine {
  /** The last failure, cleared by the next success; a cancelled call leaves it as it was. */
  readonly error: IpcError | null;
  /** Field errors of that failure ({} when none). */
  readonly fields: Record<string, string[]>;
  /** Runs one call through {@link ask} and notes its outcome. */
  ask<T>(call: Call<T>, options?: RequestOptions & { signal?: AbortSignal }): Promise<Result<T>>;
  /** Notes the outcome of a call run otherwise (a request state's `run`), and returns it. */
  note<T>(result: Result<T>): Result<T>;
}

/** Creates an {@link ErrorLine}. */
export function createErrorLine(): ErrorLine {
  const line = reactive({
    error: null as IpcError | null,
    get fields(): Record<string, string[]> {
      return line.error?.fields ?? {};
    },
    async ask<T>(call: Call<T>, options?: RequestOptions & { signal?: AbortSignal }): Promise<Result<T>> {
      return line.note(await ask(call, options));
    },
    note<T>(result: Result<T>): Result<T> {
      if (result.ok) line.error = null;
      else if (result.error.kind !== 'cancelled') line.error = result.error;
      return result;
    },
  });
  return line as ErrorLine;
}

/** Request states by key, each made on first use: one per action and item ("key:<profile id>", a job's Retry). */
export interface KeyedRequests<T> {
  /** The state of one key's request. */
  of(key: string): RequestState<T>;
  /** Every state made so far, by key (reactive). */
  readonly all: Readonly<Record<string, RequestState<T>>>;
}

/** Creates {@link KeyedRequests}; each key's state has these options. */
export function keyedRequests<T>(options: RequestOptions = {}): KeyedRequests<T> {
  const all = reactive<Record<string, RequestState<T>>>({});
  return {
    of(key: string): RequestState<T> {
      return (all[key] ??= createRequest<T>(options) as never) as RequestState<T>;
    },
    all: all as Readonly<Record<string, RequestState<T>>>,
  };
}

/** Follows one of main's events until the returned function is called. */
export function listen<E extends EventName>(event: E, handler: (payload: EventPayload<E>) => void): () => void {
  return getBridge().on(event, handler);
}

/** The preload's way from a dropped file to its path, or null where the window has none (a browser, no preload). */
export function filePaths(): ((file: File) => string) | null {
  try {
    const pathFor = getBridge().pathForFile;
    return typeof pathFor === 'function' ? pathFor : null;
  } catch {
    return null;
  }
}
