import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../../../support/temp-dirs.js';
import { ParcelStore } from '../../../../main/fields/parcels.js';
import { unpackParcel } from '../../../../main/fields/stats/packed.js';
import { featureCollection, openStore, square, writeText } from './helpers.js';

afterAll(() => removeTempDirs());

describe('GeoJSON parcel import', () => {
  it('imports polygons and multipolygons as one parcel each, lists skipped features with their reasons, and reads them back', async () => {
    const { dir, db, store } = await openStore();
    try {
      const file = writeText(dir, 'fields.geojson', featureCollection([
        { properties: { pid: 'A', nm: 'north' }, geometry: { type: 'Polygon', coordinates: [square(15, 50, 0.01)] } },
        { properties: { pid: 7, nm: null }, geometry: { type: 'MultiPolygon', coordinates: [[square(15.1, 50, 0.01)], [square(15.2, 50, 0.01)]] } },
        { properties: { pid: 'A', nm: 'again' }, geometry: { type: 'Polygon', coordinates: [square(15.3, 50, 0.01)] } },
        { properties: { pid: '', nm: 'no id' }, geometry: { type: 'Polygon', coordinates: [square(15.4, 50, 0.01)] } },
        { properties: { pid: 'bow', nm: 'bowtie' }, geometry: { type: 'Polygon', coordinates: [[[15, 51], [15.01, 51.01], [15.01, 51], [15, 51.01], [15, 51]]] } },
        { properties: { pid: 'line' }, geometry: { type: 'LineString', coordinates: [[15, 52], [15.1, 52]] } },
        { properties: { pid: 'open' }, geometry: { type: 'Polygon', coordinates: [[[15, 53], [15.01, 53], [15.01, 53.01], [15, 53.01]]] } },
        { properties: { pid: 'short' }, geometry: { type: 'Polygon', coordinates: [[[15, 54], [15.01, 54], [15, 54]]] } },
        { properties: { pid: 'none' }, geometry: null },
      ]));
      const seen = await store.inspect(file);
      expect(seen.format).toBe('geojson');
      expect(seen.layers).toHaveLength(1);
      expect(seen.layers[0]!.count).toBe(9);
      expect(seen.layers[0]!.columns).toEqual([{ name: 'pid', type: 'mixed' }, { name: 'nm', type: 'text' }]);
      expect(seen.layers[0]!.crs?.epsg).toBe(4326);

      const { set, skipped } = await store.import(file, { idColumn: 'pid', nameColumn: 'nm' }, {});
      expect(set).toMatchObject({ name: 'fields', format: 'geojson', layer: null, idColumn: 'pid', nameColumn: 'nm', count: 2, skipped: 7 });
      expect(set.bbox4326).toEqual([15, 50, 15.2 + 0.01, 50 + 0.01]);
      expect(skipped.map((s) => [s.row, s.id])).toEqual([[3, 'A'], [4, null], [5, 'bow'], [6, 'line'], [7, 'open'], [8, 'short'], [9, 'none']]);
      expect(skipped[0]!.reason).toMatch(/duplicate id/);
      expect(skipped[1]!.reason).toMatch(/missing or empty id/);
      expect(skipped[2]!.reason).toMatch(/self-intersection/);
      expect(skipped[3]!.reason).toMatch(/not a polygon \(LineString\)/);
      expect(skipped[4]!.reason).toMatch(/not closed/);
      expect(skipped[5]!.reason).toMatch(/fewer than 4/);
      expect(skipped[6]!.reason).toMatch(/no geometry/);

      const parcels = store.parcels(set.id);
      expect(parcels.map((p) => [p.index, p.id, p.name, p.geometry.type])).toEqual([[0, 'A', 'north', 'Polygon'], [1, '7', null, 'MultiPolygon']]);
      expect(parcels[0]!.geometry.coordinates).toEqual([square(15, 50, 0.01)]);
      expect(store.parcels(set.id, { bbox4326: [15.15, 49, 16, 51] }).map((p) => p.id)).toEqual(['7']);
      expect([...store.eachParcel(set.id, 1)].map((page) => page.map((p) => p.id))).toEqual([['A'], ['7']]);
      expect([...store.eachBox(set.id, 1)]).toEqual([[{ index: 0, bbox4326: parcels[0]!.bbox4326 }], [{ index: 1, bbox4326: parcels[1]!.bbox4326 }]]);
      // A statistics run's chunk: read and packed in the reader thread, in the order asked, each parcel's parts whole.
      const packed = await store.packed(set.id, Int32Array.from([1, 0]), new AbortController().signal);
      expect(Array.from(packed.indices)).toEqual([1, 0]);
      expect(unpackParcel(packed, 0)).toEqual(parcels[1]!.geometry.coordinates);
      expect(unpackParcel(packed, 1)).toEqual([parcels[0]!.geometry.coordinates]);
      await expect(store.packed(set.id, Int32Array.from([0, 2]), new AbortController().signal)).rejects.toThrow(/parcel 2 of set .* is no longer stored/);
      expect(store.sets().map((s) => s.id)).toEqual([set.id]);

      expect(store.delete(set.id)).toBe(true);
      await expect(store.packed(set.id, Int32Array.from([0]), new AbortController().signal)).rejects.toThrow(/is no longer stored/);
      await store.whenPurged();
      expect(store.sets()).toEqual([]);
      expect(db.db.prepare('SELECT COUNT(*) AS n FROM parcel').get()).toEqual({ n: 0 });
      expect(db.db.prepare('SELECT COUNT(*) AS n FROM parcel_box').get()).toEqual({ n: 0 });
    } finally {
      await store.close();
      await db.close();
    }
  });

  it('removes, off main\'s thread, a set an earlier run left half imported, and refuses a relative path', async () => {
    const { dir, db, store } = await openStore();
    const file = writeText(dir, 'one.geojson', featureCollection([{ properties: { pid: 'A' }, geometry: { type: 'Polygon', coordinates: [square(15, 50, 0.01)] } }]));
    const { set } = await store.import(file, { idColumn: 'pid' });
    await store.close();
    // An import the app ended in the middle of: its set still 'importing', some parcels written.
    db.db.exec("INSERT INTO parcel_set (id, state, name, source_file, format, crs, id_column, count, skipped, created_at) VALUES ('half', 'importing', 'half', '/x.geojson', 'geojson', '{}', 'pid', 0, 0, '2026-01-01T00:00:00.000Z')");
    const sid = (db.db.prepare("SELECT sid FROM parcel_set WHERE id = 'half'").get() as { sid: number }).sid;
    db.db.exec(`INSERT INTO parcel (sid, idx, id, west, south, east, north, geometry) VALUES (${sid}, 0, 'x', 0, 0, 1, 1, x'00'), (${sid}, 1, 'y', 0, 0, 1, 1, x'00')`);
    db.db.exec("INSERT INTO parcel_box SELECT pid, west, east, south, north FROM parcel WHERE id IN ('x', 'y')");
    const again = new ParcelStore({ db: db.db, file: db.file });
    try {
      expect(again.sets().map((s) => s.id)).toEqual([set.id]);
      await again.whenPurged();
      expect(db.db.prepare('SELECT (SELECT COUNT(*) FROM parcel) AS parcels, (SELECT COUNT(*) FROM parcel_box) AS boxes, (SELECT COUNT(*) FROM parcel_set) AS sets').get()).toEqual({ parcels: 1, boxes: 1, sets: 1 });
      await expect(again.inspect('one.geojson')).rejects.toThrow(/^file: an absolute path/);
    } finally {
      await again.close();
      await db.close();
    }
  });
});
