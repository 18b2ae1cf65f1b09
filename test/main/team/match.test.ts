import { describe, expect, it } from 'vitest';
import {
  MAX_QUERY_VERTICES,
  MAX_REQUEST_JSON_BYTES,
  MAX_STAC_JSON_BYTES,
  differencesInWords,
  ownershipQueryFor,
  purchaseKey,
  suggestedStoragePath,
  teamRasterInputFor,
  utcDayOf,
} from '../../../main/team/match.js';
import { storagePathProblem } from '../../../main/team/storage-path.js';
import type { OwnershipQuery, TeamRasterInput } from '../../../main/team/types.js';
import { BERLIN, GUID, composite, entry } from './fixtures.js';

function query(kind: 'composite' | 'tile' | 'minitile', request: Record<string, unknown>): OwnershipQuery {
  const r = ownershipQueryFor(kind, request);
  if (!r.query) throw new Error(`no query: ${r.reason}`);
  return r.query;
}

function circle(n: number, cx = 13.4, cy = 52.5, radius = 0.05): string {
  const pts: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    pts.push(`${cx + radius * Math.cos(a)} ${cy + radius * Math.sin(a)}`);
  }
  pts.push(pts[0]!);
  return `POLYGON((${pts.join(', ')}))`;
}

describe('ownershipQueryFor: a composite request in the catalog\'s terms', () => {
  it('resolves "rgb" to the bands the library records and fills in the service\'s defaults (10 m, the AOI\'s UTM zone, INT16)', () => {
    const q = query('composite', composite());
    expect(q).toEqual({
      kind: 'composite',
      date: '2026-10-03',
      model: 'Stratus2',
      aoiWkt: 'POLYGON ((13.3 52.45, 13.5 52.45, 13.5 52.56, 13.3 52.56, 13.3 52.45))',
      tileGuid: null,
      bands: ['B4', 'B3', 'B2'],
      resolution: 10,
      epsg: 32633,
      dataType: 'Int16',
    });
  });

  it('reads field names in any case, ndvi as [B8_B4], an explicit EPSG, UINT8 as Byte', () => {
    const q = query('composite', { wkt: BERLIN, date: '2026-10-03', model: 'Stratus2', bandnames: 'B8,ndvi', resolution: 20, epsgprojection: 3857, datatype: 'uint8' });
    expect(q.bands).toEqual(['B8', '[B8_B4]']);
    expect(q.resolution).toBe(20);
    expect(q.epsg).toBe(3857);
    expect(q.dataType).toBe('Byte');
    expect(query('composite', composite({ Bandnames: 'all' })).bands).toEqual(['B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'B8', 'B8A', 'B11', 'B12']);
  });

  it('takes the UTC day of a date-time, as the service does', () => {
    expect(utcDayOf('2026-10-03T23:30:00-02:00')).toBe('2026-10-04');
    expect(utcDayOf('2026-10-03T23:30:00')).toBe('2026-10-03');
    expect(utcDayOf('2026-02-30')).toBeNull();
    expect(query('composite', composite({ Date: '2026-10-03T23:30:00-02:00' })).date).toBe('2026-10-04');
  });

  it('reads a GeoJson AOI as the same area as its WKT', () => {
    const geo = { type: 'Polygon', coordinates: [[[13.3, 52.45], [13.5, 52.45], [13.5, 52.56], [13.3, 52.56], [13.3, 52.45]]] };
    const fromGeo = query('composite', { GeoJson: geo, Date: '2026-10-03', Model: 'Stratus2' });
    expect(fromGeo.aoiWkt).toBe(query('composite', composite()).aoiWkt);
  });

  it('a tile or mini-tile matches by its GUID (lower case) and date, with the bands the service delivers', () => {
    const t = query('tile', { TileGuid: GUID, Date: '2026-10-03', Model: 'Stratus2' });
    expect(t).toMatchObject({ kind: 'tile', tileGuid: GUID.toLowerCase(), aoiWkt: null, bands: ['B2', 'B3', 'B4', 'B8'], resolution: null, epsg: null });
    expect(query('minitile', { MiniTileGuid: GUID, Date: '2026-10-03', Model: 'Stratus2' }).tileGuid).toBe(GUID.toLowerCase());
  });

  it('says why a request cannot be matched', () => {
    const reason = (kind: 'composite' | 'tile' | 'minitile', r: Record<string, unknown>) => ownershipQueryFor(kind, r).reason;
    expect(reason('composite', composite({ Date: undefined }))).toMatch(/Date/);
    expect(reason('composite', composite({ Date: '2026-02-30' }))).toMatch(/Date/);
    expect(reason('composite', { Date: '2026-10-03', Model: 'Stratus2' })).toMatch(/no area/);
    expect(reason('composite', composite({ GeoJson: { type: 'Polygon', coordinates: [] } }))).toMatch(/both Wkt and GeoJson/);
    expect(reason('composite', composite({ Wkt: 'POINT(1 2)' }))).toMatch(/Polygon/);
    expect(reason('composite', composite({ Bandnames: 'B4,B99' }))).toMatch(/Bandnames: Unknown band "B99"/);
    expect(reason('composite', composite({ Resolution: -5 }))).toMatch(/Resolution/);
    expect(reason('composite', composite({ EpsgProjection: 'utm' }))).toMatch(/EpsgProjection/);
    expect(reason('composite', composite({ DataType: 'FLOAT64' }))).toMatch(/DataType/);
    expect(reason('composite', composite({ Wkt: 'POLYGON((1 1, 1 1, 1 1, 1 1))' }))).toMatch(/degenerate/);
    expect(reason('composite', composite({ Wkt: circle(MAX_QUERY_VERTICES + 10) }))).toMatch(/vertices/);
    expect(reason('composite', composite({ Wkt: `POLYGON((${'1 1, '.repeat(MAX_QUERY_VERTICES * 20)}1 1))` }))).toMatch(/vertices/);
    expect(reason('tile', { Date: '2026-10-03', Model: 'Stratus2' })).toMatch(/TileGuid/);
    expect(reason('minitile', { TileGuid: GUID, Date: '2026-10-03' })).toMatch(/MiniTileGuid/);
  });
});

describe('purchaseKey: one key per purchase', () => {
  const base = query('composite', composite({ Bandnames: 'B4,B3,B2' }));
  const key = purchaseKey(base);

  it('is stable: the same inputs give this very key in every version that keeps the v1 prefix', () => {
    expect(key).toMatch(/^v1-[0-9a-f]{64}$/);
    expect(key).toBe(purchaseKey(structuredClone(base)));
    expect(key).toBe('v1-aee77358135124b8fa78fbfc5c4f73715b21e317924579b4b69b5f2782749973');
  });

  it('is the same for the same purchase asked differently: field order and case, band order, vertex order and direction, sub-decimetre noise, defaults spelt out', () => {
    const same = [
      { Model: 'Stratus2', Date: '2026-10-03', Bandnames: 'B2,B3,B4', Wkt: BERLIN },
      { wkt: 'POLYGON((13.50 52.56, 13.30 52.56, 13.30 52.45, 13.50 52.45, 13.50 52.56))', date: '2026-10-03', model: 'Stratus2', bandnames: 'rgb' },
      composite({ Wkt: 'POLYGON((13.3000000001 52.45, 13.3 52.56, 13.5 52.56, 13.5 52.45, 13.3000000001 52.45))', Resolution: 10.0, EpsgProjection: 47000, DataType: 'INT16' }),
      composite({ Date: '2026-10-03T10:00:00Z' }),
      composite({ Model: 'stratus2' }),
    ];
    for (const r of same) expect(purchaseKey(query('composite', r))).toBe(key);
  });

  it('differs whenever the purchase differs', () => {
    const different = [
      composite({ Date: '2026-10-04' }),
      composite({ Model: 'Stratus1' }),
      composite({ Bandnames: 'B4,B3' }),
      composite({ Bandnames: 'B4,B3,B2,B8' }),
      composite({ Resolution: 20 }),
      composite({ EpsgProjection: 32632 }),
      composite({ DataType: 'UINT8' }),
      composite({ Wkt: 'POLYGON((13.30 52.45, 13.50 52.45, 13.50 52.56, 13.30 52.56001, 13.30 52.45))' }),
    ].map((r) => purchaseKey(query('composite', r)));
    const tile = purchaseKey(query('tile', { TileGuid: GUID, Date: '2026-10-03', Model: 'Stratus2' }));
    const mini = purchaseKey(query('minitile', { MiniTileGuid: GUID, Date: '2026-10-03', Model: 'Stratus2' }));
    const otherTile = purchaseKey(query('tile', { TileGuid: GUID.replace('3301', '3302'), Date: '2026-10-03', Model: 'Stratus2' }));
    const all = [key, ...different, tile, mini, otherTile];
    expect(new Set(all).size).toBe(all.length);
  });
});

function raster(over: Partial<TeamRasterInput> = {}): TeamRasterInput {
  return { ...teamRasterInputFor(entry(), 'alice/composite.tif', 'A. Analyst', 1.5), ...over };
}

describe('differencesInWords', () => {
  const q = query('composite', composite());

  it('is empty for the copy of the same request, and for one with more bands or finer pixels', () => {
    expect(differencesInWords(q, raster())).toEqual([]);
    expect(differencesInWords(q, raster({ bands: ['B2', 'B3', 'B4', 'B8'], resolution: 5 }))).toEqual([]);
  });

  it('names each difference in words', () => {
    expect(differencesInWords(q, raster({ epsg: 32632 }))).toEqual(['EPSG:32632 instead of EPSG:32633']);
    expect(differencesInWords(q, raster({ bands: ['B4'] }))).toEqual(['without bands B3, B2']);
    expect(differencesInWords(q, raster({ resolution: 20 }))).toEqual(['20 m pixels instead of 10 m']);
    expect(differencesInWords(q, raster({ date: '2026-10-04', model: 'Stratus1' }))).toEqual(['taken on 2026-10-04 instead of 2026-10-03', 'model Stratus1 instead of Stratus2']);
    expect(differencesInWords(q, raster({ dataType: 'Byte' }))).toEqual(['Byte values instead of Int16']);
    expect(differencesInWords(q, raster({ footprint: { type: 'Polygon', coordinates: [[[13.3, 52.45], [13.4, 52.45], [13.4, 52.56], [13.3, 52.56], [13.3, 52.45]]] } }))).toEqual(['covers only part of the area']);
    const t = query('tile', { TileGuid: GUID, Date: '2026-10-03', Model: 'Stratus2' });
    expect(differencesInWords(t, raster({ kind: 'tile', tileGuid: GUID.toLowerCase(), bands: ['B2', 'B3', 'B4', 'B8'] }))).toEqual([]);
    expect(differencesInWords(t, raster({ tileGuid: null, bands: ['B2', 'B3', 'B4', 'B8'] }))).toEqual([`not a tile instead of tile ${GUID.toLowerCase()}`]);
  });
});

describe('storagePathProblem: only a plain relative path inside the share', () => {
  it('accepts relative forward-slash paths', () => {
    expect(storagePathProblem('alice/2026/composite_20261003.tif')).toBeNull();
    expect(storagePathProblem('a.tif')).toBeNull();
  });

  it.each([
    ['', /empty/],
    ['../etc/passwd', /\.\./],
    ['a/../../b.tif', /\.\./],
    ['/etc/passwd', /absolute/],
    ['C:/Windows/x.tif', /drive letter/],
    ['c:x.tif', /drive letter/],
    ['a\\..\\b.tif', /backslash/],
    ['a/b\u0000.tif', /NUL/],
    ['a//b.tif', /empty/],
    ['./a.tif', /"\."/],
    ['a/b.tif.', /dot or a space/],
    ['a/b?.tif', /Windows refuses/],
    ['a/NUL.tif', /device name/],
    ['com1', /device name/],
  ])('refuses %j', (p, reason) => {
    expect(storagePathProblem(p)).toMatch(reason);
  });

  it('refuses a path of 2,000 characters', () => {
    expect(storagePathProblem('x'.repeat(2000))).toMatch(/longer/);
  });
});

describe('suggestedStoragePath', () => {
  it('files a raster under its kind and year', () => {
    expect(suggestedStoragePath(entry())).toBe('composite/2026/composite_20261003_Stratus2_32633_10m.tif');
    expect(suggestedStoragePath(entry({ kind: null, date: null, path: '/data/scene.tiff' }))).toBe('import/undated/scene.tiff');
  });

  it.each(['/d/a:b*c?.tif', '/d/CON.tif', '/d/ends with dot..tif', '/d/...tif', '/d/.tif', `/d/${'x'.repeat(400)}.tif`, '/d/tab\there.tif'])('makes %j a valid storage path', (p) => {
    const rel = suggestedStoragePath(entry({ path: p }));
    expect(storagePathProblem(rel)).toBeNull();
    expect(rel.endsWith('.tif')).toBe(true);
  });
});

describe('teamRasterInputFor: what a library raster registers as', () => {
  it('carries the library\'s metadata, the AOI as footprint, the data type, the request without its key and a STAC item pointing into the share', () => {
    const input = teamRasterInputFor(entry(), 'alice/composite.tif', '  A. Analyst ', 1.5);
    expect(input).toMatchObject({
      sha256: 'a'.repeat(64), size: 123456, kind: 'composite', date: '2026-10-03', model: 'Stratus2', constellations: ['Sentinel2'],
      bands: ['B4', 'B3', 'B2'], epsg: 32633, resolution: 10, dataType: 'Int16', tileGuid: null, storagePath: 'alice/composite.tif',
      acquiredBy: 'A. Analyst', acquiredAt: '2026-10-03T08:00:00.000Z', costEur: 1.5,
    });
    expect(input.footprint).toEqual({ type: 'Polygon', coordinates: [[[13.3, 52.45], [13.5, 52.45], [13.5, 52.56], [13.3, 52.56], [13.3, 52.45]]] });
    expect(JSON.stringify(input)).not.toContain('SECRET-KEY');
    expect(input.request).toMatchObject({ Wkt: BERLIN, Bandnames: 'rgb' });
    const stac = input.stac as { id: string; links?: unknown; geometry: unknown; assets: { data: { href: string; 'eo:bands': unknown; 'swath:sha256': string } } };
    expect(stac.assets.data.href).toBe('alice/composite.tif');
    expect(stac.assets.data['eo:bands']).toEqual([{ name: 'B4' }, { name: 'B3' }, { name: 'B2' }]);
    expect(stac.assets.data['swath:sha256']).toBe('a'.repeat(64));
    expect(stac.links).toBeUndefined();
    expect(stac.geometry).toEqual(input.footprint);
  });

  it('uses the raster\'s bounds as footprint for a tile (with its GUID) and for a composite that may hold only part of its AOI', () => {
    const box = { type: 'Polygon', coordinates: [[[13.299, 52.449], [13.501, 52.449], [13.501, 52.561], [13.299, 52.561], [13.299, 52.449]]] };
    const tile = teamRasterInputFor(entry({ kind: 'tile', request: { TileGuid: GUID, Date: '2026-10-03', Model: 'Stratus2' } }), 't.tif', 'B', null);
    expect(tile).toMatchObject({ tileGuid: GUID.toLowerCase(), dataType: 'Int16', footprint: box, costEur: null });
    expect(teamRasterInputFor(entry({ request: composite({ AllowPartialImage: true }) }), 'p.tif', 'B', 0).footprint).toEqual(box);
    expect(teamRasterInputFor(entry({ kind: null, request: null, source: 'import', bounds4326: null }), 'i.tif', 'B', null)).toMatchObject({ footprint: null, dataType: null, request: null });
  });

  it('keeps a huge AOI out of the footprint, the request and the STAC item (bounded sizes)', () => {
    const huge = entry({ request: composite({ Wkt: circle(40_000) }) });
    const input = teamRasterInputFor(huge, 'h.tif', 'A', 2);
    expect(input.footprint?.coordinates[0]).toHaveLength(5);
    expect(input.request).not.toHaveProperty('Wkt');
    expect(input.request).toMatchObject({ Date: '2026-10-03' });
    expect(Buffer.byteLength(JSON.stringify(input.request))).toBeLessThanOrEqual(MAX_REQUEST_JSON_BYTES);
    expect(Buffer.byteLength(JSON.stringify(input.stac))).toBeLessThanOrEqual(MAX_STAC_JSON_BYTES);
  });

  it('refuses an unhashed raster, a hostile storage path and a nameless acquirer', () => {
    expect(() => teamRasterInputFor(entry({ sha256: null }), 'a.tif', 'A', 0)).toThrow(/sha256 is not known/);
    expect(() => teamRasterInputFor(entry(), '../a.tif', 'A', 0)).toThrow(/storage path "..\/a.tif" is not valid: it climbs out/);
    expect(() => teamRasterInputFor(entry(), 'a.tif', '  ', 0)).toThrow(/acquirer/);
    expect(() => teamRasterInputFor(entry({ path: '/home/a/Swath/mosaic.vrt' }), 'a.vrt', 'A', 0)).toThrow(/VRT only points at its parts/);
    expect(() => teamRasterInputFor(entry(), 'a.tif', 'A', -1)).toThrow(/cost/);
  });
});
