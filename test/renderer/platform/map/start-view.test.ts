// @vitest-environment jsdom
import OlMap from 'ol/Map';
import View from 'ol/View';
import { fromLonLat, toLonLat } from 'ol/proj';
import { getCenter } from 'ol/extent';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ordersExtent, startView } from '../../../../renderer/src/platform/map/start-view';

// OpenLayers watches its target's size; jsdom has no ResizeObserver.
globalThis.ResizeObserver ??= class { observe(): void {} unobserve(): void {} disconnect(): void {} } as unknown as typeof ResizeObserver;

const saved = { views: [] as unknown[] };
const save = (view: unknown) => void saved.views.push(view);
beforeEach(() => {
  saved.views = [];
});

const BERLIN_ORDER = { summary: { geometry: 'POLYGON ((13.3 52.45, 13.5 52.45, 13.5 52.55, 13.3 52.55, 13.3 52.45))' } };
const POTSDAM_ORDER = { summary: { geometry: { type: 'Polygon', coordinates: [[[13.0, 52.35], [13.1, 52.35], [13.1, 52.42], [13.0, 52.42], [13.0, 52.35]]] } } };

function europeMap(): OlMap {
  const map = new OlMap({ view: new View({ center: fromLonLat([12, 50]), zoom: 4 }) });
  map.setSize([800, 600]);
  return map;
}

const lonLat = (map: OlMap) => toLonLat(map.getView().getCenter()!).map((v) => Math.round(v * 100) / 100);

describe('start view', () => {
  it('restores the last view from settings', async () => {
    const map = europeMap();
    const s = startView(map, { saveView: save, loadView: async () => ({ center: [13.4, 52.5], zoom: 11 }), loadOrders: async () => [BERLIN_ORDER] });
    expect(await s.ready).toBe('last-view');
    expect(lonLat(map)).toEqual([13.4, 52.5]);
    expect(map.getView().getZoom()).toBe(11);
    s.stop();
  });

  it('without a last view, starts on the account\'s orders instead of Europe at z4', async () => {
    const map = europeMap();
    const s = startView(map, { saveView: save, loadView: async () => null, loadOrders: async () => [BERLIN_ORDER, POTSDAM_ORDER, { summary: { geometry: null } }] });
    expect(await s.ready).toBe('orders');
    const [lon, lat] = lonLat(map);
    expect(lon).toBeGreaterThan(13.0);
    expect(lon).toBeLessThan(13.5);
    expect(lat).toBeGreaterThan(52.35);
    expect(lat).toBeLessThan(52.55);
    expect(map.getView().getZoom()).toBeGreaterThan(8);
    expect(toLonLat(getCenter(ordersExtent([BERLIN_ORDER])!)).map((v) => Math.round(v * 10) / 10)).toEqual([13.4, 52.5]);
    s.stop();
  });

  it('keeps the default when there are no orders, and never overrides a move the analyst made first', async () => {
    const map = europeMap();
    const s = startView(map, { saveView: save, loadView: async () => null, loadOrders: async () => [] });
    expect(await s.ready).toBe('default');
    s.stop();
    const map2 = europeMap();
    let release!: () => void;
    const s2 = startView(map2, { saveView: save, loadView: () => new Promise((r) => { release = () => r({ center: [2.35, 48.85], zoom: 10 }); }), loadOrders: async () => [] });
    map2.getViewport()!.dispatchEvent(new Event('pointerdown'));
    release();
    expect(await s2.ready).toBe('moved');
    expect(lonLat(map2)).toEqual([12, 50]);
    s2.stop();
  });

  it('saves moves to settings once the start view is set', async () => {
    vi.useFakeTimers();
    const map = europeMap();
    const s = startView(map, { saveView: save, loadView: async () => null, loadOrders: async () => [], saveDelayMs: 100 });
    await s.ready;
    map.getView().setCenter(fromLonLat([13.4, 52.5]));
    map.getView().setZoom(9);
    map.dispatchEvent('moveend');
    vi.advanceTimersByTime(150);
    expect(saved.views).toHaveLength(1);
    const v = saved.views[0] as { center: number[]; zoom: number };
    expect(v.zoom).toBe(9);
    expect(v.center.map((v) => Math.round(v * 100) / 100)).toEqual([13.4, 52.5]);
    s.stop();
    vi.useRealTimers();
  });
});
