import type OlMap from 'ol/Map';

/**
 * The one OpenLayers map of the window. MapView creates it and provides it
 * here; panels and stores that draw (results, orders, tiles, raster previews)
 * wait for it with {@link whenMap} instead of importing the component.
 */

let current: OlMap | null = null;
let waiters: ((map: OlMap) => void)[] = [];

/** Called once by MapView when the map exists (and with null when it is disposed). */
export function provideMap(map: OlMap | null): void {
  current = map;
  if (!map) return;
  const pending = waiters;
  waiters = [];
  for (const resolve of pending) resolve(map);
}

/** The map, if it exists yet. */
export function currentMap(): OlMap | null {
  return current;
}

/** Resolves with the map as soon as MapView has created it. */
export function whenMap(): Promise<OlMap> {
  if (current) return Promise.resolve(current);
  return new Promise((resolve) => waiters.push(resolve));
}
