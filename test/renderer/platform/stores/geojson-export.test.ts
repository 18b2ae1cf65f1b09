import { beforeEach, describe, expect, it } from 'vitest';
import { recordFeatures, toGeoJsonGeometry } from '../../../../renderer/src/platform/lib/geojson-export';
import { exportGeoJson } from '../../../../renderer/src/platform/stores/geojson-export';
import { bridgeStandIn } from '../../fake-bridge';

const calls = { last: null as unknown, answer: null as unknown };
const bridge = bridgeStandIn();
beforeEach(() => {
  bridge.api = { exportGeojson: async (r: unknown) => ((calls.last = r), calls.answer) };
});

describe('GeoJSON export of records', () => {
  it('turns order records (WKT, GeoJSON text or object geometry) into features with their other fields', () => {
    const rows = [
      { key: 'a', row: { OrderId: 'a', Status: 'Active', Wkt: 'POLYGON((13.3 52.4, 13.6 52.4, 13.6 52.6, 13.3 52.4))' } },
      { key: 'b', row: { OrderId: 'b', GeoJson: { type: 'Polygon', coordinates: [[[1, 2], [3, 2], [3, 4], [1, 2]]] } } },
      { key: 'c', row: { OrderId: 'c', Note: 'no area' } },
    ];
    const f = recordFeatures('order', rows);
    expect(f.map((x) => x.id)).toEqual(['a', 'b', 'c']);
    expect(f[0]).toMatchObject({ layer: 'order', geometry: { type: 'Polygon' }, properties: { OrderId: 'a', Status: 'Active' } });
    expect(f[0]!.properties).not.toHaveProperty('Wkt');
    expect((f[0]!.geometry as { coordinates: number[][][] }).coordinates[0]![1]).toEqual([13.6, 52.4]);
    expect(f[1]!.geometry).toEqual(rows[1]!.row.GeoJson);
    expect(f[2]!.geometry).toBeNull();
    expect(toGeoJsonGeometry('not a geometry')).toBeNull();
  });

  it('reports where main wrote the file, a cancel, or the failure', async () => {
    calls.answer = { ok: true, data: { cancelled: false, file: '/d/exports/orders.geojson', features: 2 } };
    expect(await exportGeoJson('orders', [])).toEqual({ kind: 'ok', text: 'Wrote 2 features to /d/exports/orders.geojson' });
    expect(calls.last).toEqual({ name: 'orders', features: [] });
    calls.answer = { ok: true, data: { cancelled: true, file: null, features: 0 } };
    expect((await exportGeoJson('orders', [])).kind).toBe('info');
    calls.answer = { ok: false, error: { kind: 'validation', message: 'There is nothing to export.' } };
    expect(await exportGeoJson('orders', [])).toEqual({ kind: 'error', text: 'GeoJSON export failed: There is nothing to export.' });
  });
});
