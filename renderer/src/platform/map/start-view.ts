import type OlMap from 'ol/Map';
import { createEmpty, extend, isEmpty, type Extent } from 'ol/extent';
import { fromLonLat, toLonLat } from 'ol/proj';
import { readGeometry } from './vector-layers';

/**
 * Where the map starts: the last view (kept in main's settings, so it
 * survives restarts in every host), or, before there is one, the account's
 * orders, so a first start shows the analyst's own areas instead of a
 * continent. The map's moves are saved back (debounced).
 */

/** A saved view: lon/lat centre and zoom. */
export interface SavedView {
  center: [number, number];
  zoom: number;
}

/** What the start view needs of an order row: its area (WKT or GeoJSON), if any. */
export interface OrderArea {
  summary: { geometry: unknown };
}

/** The extent (view projection) of the orders that have an area, or null. */
export function ordersExtent(rows: readonly OrderArea[]): Extent | null {
  const extent = createEmpty();
  for (const r of rows) {
    const g = readGeometry(r.summary.geometry);
    if (g) extend(extent, g.getExtent());
  }
  return isEmpty(extent) ? null : extent;
}

/** Options of {@link startView}. */
export interface StartViewOptions {
  /** The saved view from settings (loads them when absent). */
  loadView: () => Promise<SavedView | null>;
  /** Keeps a view (main's settings: a store does it). */
  saveView: (view: SavedView) => unknown;
  /** The account's orders (lists them), for the first start. */
  loadOrders: () => Promise<readonly OrderArea[]>;
  /** Delay before a move is saved. */
  saveDelayMs?: number;
}

/**
 * Moves the map to the last view or to the orders (unless the analyst moved it
 * meanwhile) and from then on saves each move. Returns a function that stops saving.
 */
export function startView(map: OlMap, options: StartViewOptions): { ready: Promise<'last-view' | 'orders' | 'default' | 'moved'>; stop: () => void } {
  const view = map.getView();
  let moved = false;
  let restoring = true;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const viewport = map.getViewport();
  const onUser = () => {
    moved = true;
  };
  const events = ['pointerdown', 'wheel', 'keydown'] as const;
  for (const e of events) viewport?.addEventListener(e, onUser, { passive: true });

  const save = () => {
    if (restoring) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      const c = view.getCenter();
      const zoom = view.getZoom();
      if (!c || zoom === undefined) return;
      const [lon, lat] = toLonLat(c);
      void options.saveView({ center: [Math.max(-180, Math.min(180, lon!)), Math.max(-90, Math.min(90, lat!))], zoom: Math.max(0, Math.min(24, zoom)) });
    }, options.saveDelayMs ?? 800);
  };
  map.on('moveend', save);

  const ready = (async () => {
    try {
      const last = await options.loadView().catch(() => null);
      if (moved) return 'moved' as const;
      if (last) {
        view.setCenter(fromLonLat(last.center));
        view.setZoom(last.zoom);
        return 'last-view' as const;
      }
      const rows = await options.loadOrders().catch(() => []);
      const extent = ordersExtent(rows);
      if (moved) return 'moved' as const;
      if (extent) {
        view.fit(extent, { padding: [60, 60, 60, 60], maxZoom: 12 });
        return 'orders' as const;
      }
      return 'default' as const;
    } finally {
      // Saving starts after the start view is set, so the default view never overwrites a saved one.
      restoring = false;
    }
  })();

  return {
    ready,
    stop: () => {
      if (timer) clearTimeout(timer);
      map.un('moveend', save);
      for (const e of events) viewport?.removeEventListener(e, onUser);
    },
  };
}
