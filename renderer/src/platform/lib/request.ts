import { reactive } from 'vue';
import type { IpcError, Result } from '../../../../preload/contract';
import { CANCELLED_ERROR } from '../../../../preload/contract/errors';

/**
 * One bridge call's lifecycle as reactive state (loading, error, busy note),
 * with the error routing every panel shares: 'rate-limited' is retried with
 * backoff while "Service busy, retrying" is shown, 'auth' goes to the key
 * dialog, 'transient'/'io' offer Retry, 'validation' fields go next to inputs.
 */

/** Reactive state of a {@link createRequest} call. */
export interface RequestState<T> {
  loading: boolean;
  error: IpcError | null;
  /** "Service busy, retrying in 4 s" while a rate-limited call waits to be retried. */
  busy: string | null;
  data: T | null;
  /** When the last successful answer arrived (ms since epoch). */
  at: number | null;
  /**
   * Runs a call (superseding any running one, which is cancelled) and returns its final result.
   * The call gets a signal to pass to `getBridge(signal)`, so that cancelling stops the work in main.
   */
  run(call: (signal: AbortSignal) => Promise<Result<T>>): Promise<Result<T>>;
  /** Runs the last call again. */
  retry(): Promise<Result<T>> | null;
  /** Cancels the running call: its signal fires (main stops its work) and its answer is ignored. */
  cancel(): void;
  /** Clears data and error. */
  reset(): void;
  /** Field errors of the last failure ({} when none). */
  readonly fields: Record<string, string[]>;
}

/** Options of {@link createRequest}. */
export interface RequestOptions {
  /** Waits before each automatic retry of a rate-limited call; its length is the number of retries. */
  rateLimitDelaysMs?: number[];
  /** Called with an 'auth' failure (the app opens the key dialog). */
  onAuth?: (error: IpcError) => void;
}

let defaultOnAuth: ((error: IpcError) => void) | null = null;

/** Installs what every request does on an 'auth' failure (the shell opens the key dialog). */
export function setAuthHandler(handler: ((error: IpcError) => void) | null): void {
  defaultOnAuth = handler;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Creates the reactive state of one kind of call. */
export function createRequest<T>(options: RequestOptions = {}): RequestState<T> {
  const delays = options.rateLimitDelaysMs ?? [2000, 4000, 8000];
  let last: ((signal: AbortSignal) => Promise<Result<T>>) | null = null;
  let token = 0;
  let controller: AbortController | null = null;
  /** Forgets the running call and aborts its signal. */
  const drop = (): void => {
    token++;
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
    async run(call: (signal: AbortSignal) => Promise<Result<T>>): Promise<Result<T>> {
      last = call;
      drop();
      const mine = token;
      const ac = (controller = new AbortController());
      state.loading = true;
      state.error = null;
      state.busy = null;
      for (let attempt = 0; ; attempt++) {
        let result: Result<T>;
        try {
          result = await call(ac.signal);
        } catch (e) {
          result = { ok: false, error: { kind: 'io', message: (e as Error).message || String(e) } };
        }
        if (mine !== token) return { ok: false, error: CANCELLED_ERROR };
        if (result.ok) {
          state.data = result.data as never;
          state.at = Date.now();
          state.loading = false;
          state.busy = null;
          return result;
        }
        if (result.error.kind === 'rate-limited' && attempt < delays.length) {
          // Jitter keeps several panels from retrying in lockstep.
          const wait = Math.round(delays[attempt]! * (0.8 + Math.random() * 0.4));
          state.busy = `Service busy, retrying in ${Math.max(1, Math.round(wait / 1000))} s…`;
          await sleep(wait);
          if (mine !== token) return { ok: false, error: CANCELLED_ERROR };
          continue;
        }
        state.error = result.error;
        state.loading = false;
        state.busy = null;
        if (result.error.kind === 'auth') (options.onAuth ?? defaultOnAuth)?.(result.error);
        return result;
      }
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

/** True when a failure is worth a Retry button (network or host trouble, not a refusal). */
export function isRetryable(error: IpcError | null): boolean {
  return !!error && (error.kind === 'transient' || error.kind === 'io' || error.kind === 'rate-limited');
}

/** Field reasons for one property, matched case-insensitively and by prefix ("GeoJson.coordinates" counts for "GeoJson"). */
export function reasonsFor(fields: Record<string, string[]> | null | undefined, name: string): string[] {
  if (!fields) return [];
  const lower = name.toLowerCase();
  const out: string[] = [];
  for (const [key, reasons] of Object.entries(fields)) {
    const k = key.toLowerCase().replace(/^\$\.?|^body\./, '');
    if (k === lower || k.startsWith(`${lower}.`) || k.startsWith(`${lower}[`)) out.push(...reasons);
  }
  return out;
}
