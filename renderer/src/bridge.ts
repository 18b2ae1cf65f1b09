import type { SwathApi } from '../../preload/contract';

/**
 * The only module that touches `window.swath`. Everything else imports the
 * bridge from here, so tests replace this one module.
 */

declare global {
  interface Window {
    swath?: SwathApi;
  }
}

/** Returns the preload's API; throws if the page runs without the Swath preload (e.g. opened in a browser). */
export function getBridge(): SwathApi {
  const api = window.swath;
  if (!api) throw new Error('window.swath is missing: the Swath preload did not run.');
  return api;
}

export type { SwathApi };
