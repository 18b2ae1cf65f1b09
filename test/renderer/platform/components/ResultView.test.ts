// @vitest-environment jsdom
import { mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import OlMap from 'ol/Map';
import View from 'ol/View';
import { getCenter } from 'ol/extent';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// OpenLayers watches its target's size; jsdom has no ResizeObserver.
globalThis.ResizeObserver ??= class { observe(): void {} unobserve(): void {} disconnect(): void {} } as unknown as typeof ResizeObserver;

// The real vector layers: without a map they hold the features, and the map takes the layers when it is provided.
const vectorLayers = await import('../../../../renderer/src/platform/map/vector-layers');
const { provideMap } = await import('../../../../renderer/src/platform/map/map-context');

const ResultView = (await import('../../../../renderer/src/platform/components/ResultView.vue')).default;
const DataTable = (await import('../../../../renderer/src/platform/components/DataTable.vue')).default;

const ORDER = {
  TaskOrderGuid: '8c60a59a-ae13-49e9-8e4f-157f6bf6d0ed',
  OrderingProcessStatus: 'Completed',
  CreatedAt: '2026-07-24T07:21:50.125Z',
  From: '2026-07-25',
  TaskOrderAreaKm2: 526.89,
  TotalCost: 2529.05,
  Wkt: 'POLYGON ((13.25 52.4, 13.6 52.4, 13.6 52.6, 13.25 52.6, 13.25 52.4))',
  Expired: false,
};

beforeEach(() => {
  setActivePinia(createPinia());
});
afterEach(() => {
  provideMap(null);
  vectorLayers.resetVectorLayers();
});

describe('ResultView', () => {
  it('recognises GUIDs, geometry, dates, money, units and booleans in any record', () => {
    const w = mount(ResultView, { props: { data: { CurrencyCode: 'EUR', ...ORDER } } });
    const field = (k: string) => w.get(`[data-field="${k}"]`).text();
    expect(field('TaskOrderGuid')).toContain('8c60a59a-ae13-49e9-8e4f-157f6bf6d0ed');
    expect(field('CreatedAt')).toBe('2026-07-24 07:21 UTC');
    expect(field('From')).toBe('2026-07-25UTC');
    expect(field('TaskOrderAreaKm2')).toBe('526.89 km²');
    expect(field('TotalCost')).toBe('2,529.05 EUR');
    expect(field('Expired')).toContain('no');
    expect(field('Wkt')).toContain('Polygon · 4 vertices');
    // No "use" button unless someone listens for use-guid.
    expect(w.find('[data-testid="use-guid"]').exists()).toBe(false);
  });

  it('emits use-guid and show-geometry, and draws the geometry on the map', async () => {
    const w = mount(ResultView, { props: { data: ORDER, guidLabel: 'Use in details', onUseGuid: () => undefined } });
    const use = w.get('[data-testid="use-guid"]');
    expect(use.text()).toBe('Use in details');
    await use.trigger('click');
    expect(w.emitted('use-guid')![0]).toEqual([{ key: 'TaskOrderGuid', value: ORDER.TaskOrderGuid, path: 'TaskOrderGuid' }]);
    await w.get('[data-testid="show-on-map"]').trigger('click');
    expect(w.emitted('show-geometry')![0]![0]).toMatchObject({ key: 'Wkt', geometry: ORDER.Wkt });
    // The order's polygon is on the shared result layer, where its WKT puts it (Web Mercator).
    expect(vectorLayers.featureIds('result-view')).toEqual(['shown']);
    const extent = vectorLayers.layerExtent('result-view')!;
    const expected = vectorLayers.readGeometry(ORDER.Wkt, 'EPSG:3857')!.getExtent();
    extent.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 3));
    // Once the map exists the layer is on it and the view is zoomed to the polygon.
    const map = new OlMap({ view: new View() });
    map.setSize([800, 600]);
    provideMap(map);
    await vi.waitFor(() => expect(map.getView().getCenter()).toBeDefined());
    expect(map.getLayers().getArray().filter((l) => l.get('swathKey') === 'result-view')).toHaveLength(1);
    const [x, y] = map.getView().getCenter()!;
    expect(x).toBeCloseTo(getCenter(expected)[0]!, 3);
    expect(y).toBeCloseTo(getCenter(expected)[1]!, 3);
    map.dispose();
  });

  it('shows lists of records as tables and switches to a tree', async () => {
    const w = mount(ResultView, { props: { data: { Orders: [ORDER, { ...ORDER, TaskOrderGuid: '0f6b9398-1469-4c62-ae33-f94bcbbbb00e', TotalCost: 332.31 }] } } });
    expect(w.findAll('tbody tr')).toHaveLength(2);
    expect(w.get('[data-testid="totals"]').text()).toContain('2,861.36 EUR');
    await w.findAll('button').find((b) => b.text() === 'Tree')!.trigger('click');
    expect(w.find('table').exists()).toBe(false);
    expect(w.text()).toContain('TaskOrderGuid');
  });

  it('highlights limits by name', () => {
    const w = mount(ResultView, { props: { data: { MaxCompositeAreaKm2: 2500, KeyName: 'x' }, highlight: /max/i } });
    expect(w.get('[data-field="MaxCompositeAreaKm2"]').text()).toContain('limit');
    expect(w.get('[data-field="KeyName"]').text()).not.toContain('limit');
  });
});

describe('DataTable', () => {
  const rows = [
    { Timestamp: '2026-07-24T07:21:50Z', Kind: 'Order', Amount: -2529.05, BalanceAfter: 22470.95 },
    { Timestamp: '2026-07-02T10:00:00Z', Kind: 'Voucher', Amount: 50, BalanceAfter: 25050 },
    { Timestamp: '2026-07-10T10:00:00Z', Kind: 'Download', Amount: -12.5, BalanceAfter: 25037.5 },
  ];

  it('sorts by any column (dates and numbers as such) and totals money, not balances', async () => {
    const w = mount(DataTable, { props: { rows, currency: 'EUR' } });
    const kinds = () => w.findAll('tbody tr').map((tr) => tr.findAll('td')[1]!.text());
    expect(kinds()).toEqual(['Order', 'Voucher', 'Download']);
    await w.get('[data-col="Timestamp"]').trigger('click');
    expect(kinds()).toEqual(['Voucher', 'Download', 'Order']);
    await w.get('[data-col="Amount"]').trigger('click');
    expect(kinds()).toEqual(['Order', 'Download', 'Voucher']);
    await w.get('[data-col="Amount"]').trigger('click');
    expect(kinds()).toEqual(['Voucher', 'Download', 'Order']);
    expect(w.get('th[aria-sort="descending"]').text()).toContain('Amount');
    const totals = w.get('[data-testid="totals"]').text();
    expect(totals).toContain('-2,491.55 EUR');
    expect(totals).not.toContain('72,558');
    expect(totals).toContain('Total · 3 rows');
  });

  it('says so when there are no rows', () => {
    const w = mount(DataTable, { props: { rows: [] } });
    expect(w.text()).toContain('No rows.');
  });
});
