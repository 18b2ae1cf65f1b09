import { watch } from 'vue';
import { createRequest, type Call, type RequestState } from '../request';
import { useSessionStore } from './session';

/**
 * A list the service gives per connection (tasking models, spec-built operations), for use inside
 * a setup store: loaded once per connection (the session's `generation`), shared by every caller
 * while in flight, dropped when the profile or key changes and loaded again if it was in use.
 */
export function perConnection<T>(call: Call<T>): { request: RequestState<T>; load(force?: boolean): Promise<void> } {
  const session = useSessionStore();
  const request = createRequest<T>();
  let loadedFor = -1;
  let inflight: Promise<void> | null = null;

  /** Loads unless already loaded (or loading) for the current connection. */
  function load(force = false): Promise<void> {
    if (!force && loadedFor === session.generation && (request.data || inflight)) return inflight ?? Promise.resolve();
    loadedFor = session.generation;
    inflight = request.run(call).then(() => {
      inflight = null;
    });
    return inflight;
  }

  watch(() => session.generation, () => {
    const wasLoaded = loadedFor >= 0;
    request.reset();
    loadedFor = -1;
    inflight = null;
    if (wasLoaded) void load();
  });

  return { request, load };
}
