// @vitest-environment jsdom
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, makeBridge } from '../../fake-bridge';
import { useAoiStore } from '../../../../renderer/src/platform/stores/aoi';

// The AOI is kept in the window's storage, as the map view is, and read back by the next window.

const fake = bridgeStandIn();
const TRIANGLE = 'POLYGON((13.35 52.48, 13.45 52.48, 13.40 52.53, 13.35 52.48))';

/** A fresh window's stores (the storage stays, as it does over a reload). */
function reload(): ReturnType<typeof useAoiStore> {
  setActivePinia(createPinia());
  return useAoiStore();
}

beforeEach(() => {
  localStorage.clear();
  fake.api = makeBridge().api;
});
afterEach(() => localStorage.clear());

describe('the kept AOI', () => {
  it('comes back after a reload with its label and send-as mode, and a cleared AOI stays cleared', () => {
    const first = reload();
    expect(first.geometry).toBeNull();
    expect(first.importText(TRIANGLE, 'file', 'triangle.wkt')).toEqual({ ok: true });
    first.setMode('GeoJson');

    const again = reload();
    expect(again.geometry).toEqual(first.geometry);
    expect(again.vertexCount).toBe(3);
    expect(again.label).toBe('triangle.wkt');
    expect(again.source).toBe('file');
    expect(again.mode).toBe('GeoJson');
    expect(again.valid).toBe(true);

    again.clear();
    expect(reload().geometry).toBeNull();
  });

  it('ignores a kept value it cannot read (broken JSON, a foreign shape, a geometry that does not parse)', () => {
    for (const raw of ['{not json', '"a string"', JSON.stringify({ geometry: 42 }), JSON.stringify({ geometry: 'POLYGON((1 2' })]) {
      localStorage.setItem('swath.aoi', raw);
      const aoi = reload();
      expect(aoi.geometry, raw).toBeNull();
    }
  });
});
