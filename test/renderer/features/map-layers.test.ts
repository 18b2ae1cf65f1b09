// @vitest-environment jsdom
/** The features' map layers: each feature adds its own layer to the map through its contribution and removes it again. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import OlMap from 'ol/Map';
import type BaseLayer from 'ol/layer/Base';
import TileLayer from 'ol/layer/Tile';
import type OSM from 'ol/source/OSM';
import { createPinia, setActivePinia } from 'pinia';
import { nextTick } from 'vue';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, makeBridge, NO_POLICY, ok } from '../fake-bridge';
import settings from '../../../renderer/src/features/settings/contribution';
import { useSettingsStore } from '../../../renderer/src/features/settings';
import { useDistributionStore } from '../../../renderer/src/platform/stores/distribution';
import { colourOf, installParcelLayer, NO_VALUE, PARCEL_LAYER, parcelLook } from '../../../renderer/src/features/fields/views/parcel-layer';
import { useFieldsStore } from '../../../renderer/src/features/fields/stores/fields';
import { featureCount, featureOf, resetVectorLayers, stateOf } from '../../../renderer/src/platform/map/vector-layers';

const fake = bridgeStandIn();
beforeEach(() => setActivePinia(createPinia()));
// jsdom has no ResizeObserver; an OpenLayers map asks for one to watch its (absent) target's size.
globalThis.ResizeObserver ??= class {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
};
afterEach(() => resetVectorLayers());

/** The next layer added to `map`. */
const nextAdded = (map: OlMap): Promise<BaseLayer> => new Promise((resolve) => map.getLayers().once('add', (e) => resolve((e as unknown as { element: BaseLayer }).element)));

describe("the settings' online basemap", () => {
  it('is added while osmLayer is on and the policy allows it, follows the policy\'s tile server, and is removed with its contribution', async () => {
    let stored = { downloadDir: '/data', theme: 'system' as const, osmLayer: false };
    fake.api = makeBridge({
      settingsGet: async () => ok(stored),
      settingsSet: async (patch: Partial<typeof stored>) => ok((stored = { ...stored, ...patch })),
    }).api;
    const store = useSettingsStore();
    await store.loadSettings();
    const map = new OlMap({});
    const layer = settings.mapLayers.find((l) => l.id === 'online-basemap')!;
    const remove = layer.install(map);
    await nextTick();
    // Off: no layer, and its code is not asked for.
    expect(map.getLayers().getLength()).toBe(0);

    const added = nextAdded(map);
    await store.update({ osmLayer: true });
    const online = (await added) as TileLayer<OSM>;
    expect(online).toBeInstanceOf(TileLayer);
    expect(online.getVisible()).toBe(true);
    expect(online.getSource()!.getUrls()).toEqual(['https://tile.openstreetmap.org/{z}/{x}/{y}.png']);

    // The policy names an internal tile server: the same layer reads from it.
    const dist = useDistributionStore();
    const sourced = new Promise<void>((resolve) => online.once('change:source', () => resolve()));
    dist.policy = { ...NO_POLICY, status: 'applied', basemap: { online: 'xyz', xyzUrl: 'https://tiles.corp.example/{z}/{x}/{y}.png', attribution: '© Corp' } };
    await sourced;
    expect(online.getSource()!.getUrls()).toEqual(['https://tiles.corp.example/{z}/{x}/{y}.png']);

    // The policy forbids online tiles: hidden.
    dist.policy = { ...NO_POLICY, status: 'applied', basemap: { online: 'none', xyzUrl: null, attribution: null } };
    await nextTick();
    expect(online.getVisible()).toBe(false);

    remove();
    expect(map.getLayers().getLength()).toBe(0);
    // Removed, it no longer follows the settings.
    dist.policy = null;
    await store.update({ osmLayer: true });
    await nextTick();
    expect(map.getLayers().getLength()).toBe(0);
  });
});

describe("the fields' parcel layer", () => {
  const square = (x: number) => ({ type: 'Polygon', coordinates: [[[x, 50], [x + 0.01, 50], [x + 0.01, 50.01], [x, 50.01], [x, 50]]] });
  const parcel = (index: number) => ({ index, id: `P-${index}`, name: `Parcel ${index}`, geometry4326: square(12 + index / 10) });

  it("draws the selected set's parcels coloured by the panel's choice, selects the chart's parcel, and is removed with its contribution", async () => {
    fake.api = makeBridge({ fieldsResults: async () => ok({ results: [] }) }).api;
    const fields = useFieldsStore();
    const remove = installParcelLayer();
    expect(featureCount(PARCEL_LAYER)).toBe(0);

    fields.parcels = [parcel(0), parcel(1), parcel(2)] as typeof fields.parcels;
    await nextTick();
    expect(featureCount(PARCEL_LAYER)).toBe(3);
    // No values yet: every parcel grey.
    expect(featureOf(PARCEL_LAYER, '0')!.get('swathColor')).toBe(NO_VALUE);

    const others = { median: null, min: null, max: null, std: null, p10: null, p90: null, validPixels: 10, coveredShare: 1, validShare: 1 };
    fields.latest = [
      { parcelIndex: 0, date: '2026-05-01', value: 0.2, previousDate: '2026-04-01', change: 0.1, ...others },
      { parcelIndex: 1, date: '2026-05-01', value: 0.8, previousDate: '2026-04-01', change: -0.3, ...others },
    ];
    await nextTick();
    const colours = () => ['0', '1', '2'].map((id) => featureOf(PARCEL_LAYER, id)!.get('swathColor') as string);
    // By value: the two values span the ramp; the parcel without one stays grey.
    const byValue = { by: 'value' as const, ramp: 'viridis' as const, min: 0.2, max: 0.8 };
    expect(colours()).toEqual([colourOf(0.2, byValue), colourOf(0.8, byValue), NO_VALUE]);

    // By change (the panel's choice): a ramp symmetric around 0.
    parcelLook.by = 'change';
    await nextTick();
    const byChange = { by: 'change' as const, ramp: 'rdylgn' as const, min: -0.3, max: 0.3 };
    expect(colours()).toEqual([colourOf(0.1, byChange), colourOf(-0.3, byChange), NO_VALUE]);
    expect(colours()[0]).not.toBe(colourOf(0.2, byValue));
    parcelLook.by = 'value';

    fields.chart = { parcelIndex: 1, stats: [] };
    await nextTick();
    expect(stateOf(PARCEL_LAYER, '1')).toBe('selected');

    remove();
    expect(featureCount(PARCEL_LAYER)).toBe(0);
    fields.parcels = [parcel(3)] as typeof fields.parcels;
    await nextTick();
    expect(featureCount(PARCEL_LAYER)).toBe(0);
  });
});

describe('the map imports no feature', () => {
  it("MapView.vue, the AOI toolbar and tools name no feature's module (lint refuses it too: the layer table's shell map views)", () => {
    for (const file of ['MapView.vue', 'AoiToolbar.vue', 'aoi-tools.ts']) {
      const source = readFileSync(path.resolve(import.meta.dirname, '../../../renderer/src/shell', file), 'utf8');
      expect(source, file).not.toMatch(/from '[^']*features\/|import\('[^']*features\//);
    }
  });
});
