import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../main/api/errors.js';
import type { ServiceClient } from '../../../main/api/client.js';
import { validateComposite, validateOrder, validateSearchAvailable } from '../../../main/api/validation.js';
import { SMALL_AOI, UNCOVERED_AOI, startTestSim, type TestSim } from '../../simulator/helpers.js';
import { makeClient, type TestClient } from './helpers.js';

type Call = (client: ServiceClient, body: any, validate: boolean) => Promise<unknown>;

const ops: Record<string, Call> = {
  search: (c, b, validate) => c.searchAvailable(b, undefined, { validate }),
  available: (c, b, validate) => c.compositeAvailable(b, undefined, { validate }),
  estimate: (c, b, validate) => c.compositeEstimate(b, undefined, { validate }),
  composite: (c, b, validate) => c.processComposite(b, undefined, { validate }),
  tile: (c, b, validate) => c.processTile(b, undefined, { validate }),
  order: (c, b, validate) => c.estimateOrder(b, undefined, { validate }),
};

async function fieldsOf(p: Promise<unknown>): Promise<{ kind: string; code: number | null; fields: Record<string, string[]> }> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { kind: e.kind, code: e.code, fields: e.fields ?? {} };
  }
  throw new Error('expected a validation failure');
}

const STRATUS = { Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'] };
const GEO = { type: 'Polygon', coordinates: [[[13.4, 52.5], [13.43, 52.5], [13.43, 52.52], [13.4, 52.5]]] };
const ORDER = { Wkt: UNCOVERED_AOI, ...STRATUS, ImageFrequency: 7, ReferenceDate: '2026-01-01', From: '2026-10-01', To: '2026-10-30' };

describe('client validation mirrors the service', () => {
  let t: TestSim;
  let c: TestClient;
  let tileGuid: string;
  const DATE = '2026-11-01';

  beforeAll(async () => {
    t = await startTestSim();
    c = makeClient(t.url);
    await c.client.connect();
    const tiles: any = await c.client.callOpen('tasking.searchTiles', { body: { Wkt: SMALL_AOI } });
    tileGuid = tiles.Tiles[0].Guid;
  });
  afterAll(async () => { await c.close(); await t.close(); });

  const composite = { Wkt: SMALL_AOI, Date: DATE, ...STRATUS };
  const cases: [string, keyof typeof ops, () => Record<string, unknown>][] = [
    ['search: Wkt and GeoJson', 'search', () => ({ Wkt: SMALL_AOI, GeoJson: GEO, From: '2026-01-01' })],
    ['search: no AOI', 'search', () => ({ From: '2026-01-01' })],
    ['search: From after Until', 'search', () => ({ Wkt: SMALL_AOI, From: '2026-05-01', Until: '2026-04-01' })],
    ['search: From not a date', 'search', () => ({ Wkt: SMALL_AOI, From: 'yesterday' })],
    ['search: display model name', 'search', () => ({ Wkt: SMALL_AOI, From: '2026-01-01', Model: 'Stratus-2' })],
    ['search: unknown constellation', 'search', () => ({ Wkt: SMALL_AOI, From: '2026-01-01', Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2', 'Sentinel9'] })],
    ['available: display model name', 'available', () => ({ ...composite, Model: 'Stratus-2 Fast' })],
    ['available: required constellation missing', 'available', () => ({ ...composite, Model: 'Stratus3', SatelliteConstellations: ['Sentinel1', 'Sentinel2'] })],
    ['available: unsupported constellation', 'available', () => ({ ...composite, SatelliteConstellations: ['Sentinel1', 'Sentinel2', 'Sentinel2L1'] })],
    ['available: bad band', 'available', () => ({ ...composite, Bandnames: 'B1,B2' })],
    ['available: negative EPSG', 'available', () => ({ ...composite, EpsgProjection: -5 })],
    ['available: bad UTM mode', 'available', () => ({ ...composite, UtmDataSelectionMode: 'any_utm' })],
    ['estimate: two GUIDs', 'estimate', () => ({ TileGuid: tileGuid, MiniTileGuid: tileGuid })],
    ['estimate: AOI and GUID', 'estimate', () => ({ Wkt: SMALL_AOI, TileGuid: tileGuid })],
    ['estimate: malformed GUID', 'estimate', () => ({ TileGuid: 'abc' })],
    ['estimate: malformed index', 'estimate', () => ({ Wkt: SMALL_AOI, Bandnames: 'B4,[B8-B4]' })],
    ['composite: Resolution not in the set', 'composite', () => ({ ...composite, Resolution: 15 })],
    ['composite: Wkt and GeoJson', 'composite', () => ({ ...composite, GeoJson: GEO })],
    ['composite: rgb combined', 'composite', () => ({ ...composite, Bandnames: 'rgb,B8' })],
    ['composite: bad DataType', 'composite', () => ({ ...composite, DataType: 'FLOAT32' })],
    ['composite: bad Date', 'composite', () => ({ ...composite, Date: '2026-02-30' })],
    ['composite: unclosed ring', 'composite', () => ({ ...composite, Wkt: 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52))' })],
    ['composite: a point', 'composite', () => ({ ...composite, Wkt: 'POINT(13.4 52.5)' })],
    ['composite: open GeoJSON ring', 'composite', () => ({ Date: DATE, ...STRATUS, GeoJson: { type: 'Polygon', coordinates: [[[13.4, 52.5], [13.43, 52.5], [13.43, 52.52], [13.41, 52.52]]] } })],
    ['composite: missing Model', 'composite', () => ({ Wkt: SMALL_AOI, Date: DATE })],
    ['tile: missing TileGuid', 'tile', () => ({ Date: DATE, ...STRATUS })],
    ['tile: display model name', 'tile', () => ({ TileGuid: tileGuid, Date: DATE, Model: 'Stratus-2' })],
    ['order: no area', 'order', () => ({ ...ORDER, Wkt: undefined })],
    ['order: polygon and tiles', 'order', () => ({ ...ORDER, TileGuids: [tileGuid] })],
    ['order: From after To', 'order', () => ({ ...ORDER, From: '2026-11-01', To: '2026-10-01' })],
    ['order: impossible ReferenceDate', 'order', () => ({ ...ORDER, ReferenceDate: '2026-02-30' })],
    ['order: display model name', 'order', () => ({ ...ORDER, Model: 'Stratus-2' })],
    ['order: constellations missing', 'order', () => ({ ...ORDER, SatelliteConstellations: undefined })],
    ['order: fractional ImageFrequency', 'order', () => ({ ...ORDER, ImageFrequency: 1.5 })],
    ['order: negative StorageMonths', 'order', () => ({ ...ORDER, StorageMonths: -1 })],
  ];

  for (const [name, op, make] of cases) {
    it(`${name}: same property keys from the client and from the service`, async () => {
      const before = c.attempts.length;
      const local = await fieldsOf(ops[op]!(c.client, make(), true));
      // Refused before sending (the model list is already cached).
      expect(c.attempts.length).toBe(before);
      const remote = await fieldsOf(ops[op]!(c.client, make(), false));
      expect(remote.kind).toBe('validation');
      expect(remote.code).toBe(992);
      expect(local).toMatchObject({ kind: 'validation', code: 992 });
      expect(Object.keys(local.fields).sort()).toEqual(Object.keys(remote.fields).sort());
      for (const reasons of Object.values(local.fields)) for (const r of reasons) expect(r.length).toBeGreaterThan(5);
    });
  }

  it('accepts valid requests of every shape without warnings', () => {
    const models = [{ Model: 'Stratus2', SupportedSatelliteConstellations: [{ SatelliteConstellation: 'Sentinel1', Optional: false }, { SatelliteConstellation: 'Sentinel2', Optional: false }, { SatelliteConstellation: 'Landsat89', Optional: true }] }];
    expect(validateComposite({ ...composite, SatelliteConstellations: ['Sentinel1', 'Sentinel2', 'Landsat89'], Date: '2026-11-01T10:00:00Z', Bandnames: 'ndvi', EpsgProjection: 32633, Resolution: 1280, UploadUrl: null }, { models })).toEqual({ errors: {}, warnings: {} });
    expect(validateComposite({ ...composite, Wkt: 'SRID=4326;MULTIPOLYGON Z (((1 1 0, 2 1 0, 2 2 0, 1 1 0)), ((3 3 0, 4 3 0, 4 4 0, 3 3 0)))' }, { models }).errors).toEqual({});
    expect(validateComposite({ ...composite, Wkt: undefined, GeoJson: JSON.stringify(GEO) }, { models }).errors).toEqual({});
    expect(validateSearchAvailable({ GeoJson: GEO, From: '2026-01-01T00:00:00Z', Until: null }, { models: null }).errors).toEqual({});
    expect(validateOrder({ ...ORDER, Wkt: undefined, MiniTileGuids: [tileGuid], To: null, TileDeduplication: true }, { models }, { create: true }).errors).toEqual({});
  });

  it('warns but does not refuse an EPSG the contract does not name', async () => {
    const r = validateComposite({ ...composite, EpsgProjection: 2154 }, { models: null });
    expect(r.errors).toEqual({});
    expect(r.warnings.EpsgProjection![0]).toMatch(/EPSG 2154/);
  });

  it('suggests the enum value for a display name, and lists the valid models otherwise', async () => {
    const display = await fieldsOf(c.client.compositeAvailable({ ...composite, Model: 'Stratus-2' }));
    expect(display.fields.Model![0]).toMatch(/'Stratus-2' is not a model enum value.*use 'Stratus2'/);
    const unknown = await fieldsOf(c.client.compositeAvailable({ ...composite, Model: 'Cumulus' }));
    expect(unknown.fields.Model![0]).toMatch(/Unknown model 'Cumulus'. Valid values: Stratus2, Stratus3/);
    const missing = await fieldsOf(c.client.compositeAvailable({ ...composite, Model: 'Stratus3', SatelliteConstellations: ['Sentinel1'] }));
    expect(missing.fields.SatelliteConstellations).toEqual([
      "Model Stratus3 requires constellation 'Sentinel2'.",
      "Model Stratus3 requires constellation 'Landsat89'.",
    ]);
  });
});
