import type { CallOptions, Result, SwathApi } from '../../../preload/contract';
// Values from the zod-free module only: the channel schemas stay out of the first-paint bundle.
import { CANCELLED_ERROR } from '../../../preload/contract/errors';

/**
 * The only module that touches `window.swath`. Everything else imports the
 * bridge from here. It reads `window.swath` at each call, as `globalThis.swath` (the same object in a
 * page), so that tests install a stand-in there, in jsdom or in plain Node (test/renderer/fake-bridge.ts).
 */

declare global {
  interface Window {
    swath?: SwathApi;
  }
}

type Method = (request?: unknown, options?: CallOptions) => Promise<Result<unknown>>;

let nextCallId = 1;

/**
 * Returns the preload's API; throws if the page runs without the Swath preload (e.g. opened in a
 * browser). With a `signal`, each call made through the returned API is cancelled when the signal
 * fires: main aborts the call's work, and the call answers 'cancelled' at once.
 */
export function getBridge(signal?: AbortSignal): SwathApi {
  const api = (globalThis as { swath?: SwathApi }).swath;
  if (!api) throw new Error('window.swath is missing: the Swath preload did not run.');
  return signal ? cancellable(api, signal) : api;
}

/** The bridge's own functions; every other function of the API is a channel method. */
const NOT_CHANNELS = new Set(['on', 'cancel', 'pathForFile']);

/** The API with every channel method tied to `signal`. */
function cancellable(api: SwathApi, signal: AbortSignal): SwathApi {
  const out: Record<string, unknown> = { on: api.on, cancel: api.cancel, pathForFile: api.pathForFile };
  for (const [name, value] of Object.entries(api)) {
    if (NOT_CHANNELS.has(name) || typeof value !== 'function') continue;
    const method = value as Method;
    out[name] = (request?: unknown) => callCancellable(api, method, request, signal);
  }
  return out as SwathApi;
}

function callCancellable(api: SwathApi, method: Method, request: unknown, signal: AbortSignal): Promise<Result<unknown>> {
  const cancelled: Result<never> = { ok: false, error: CANCELLED_ERROR };
  if (signal.aborted) return Promise.resolve(cancelled);
  const callId = nextCallId++;
  return new Promise((resolve) => {
    const onAbort = (): void => {
      api.cancel(callId);
      resolve(cancelled);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    void method(request, { callId }).then((result) => {
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    });
  });
}

export type { SwathApi };
