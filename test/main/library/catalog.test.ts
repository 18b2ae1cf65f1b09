import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LIBRARY_FILE, LibraryCatalog, boundsTo4326, readRasterMetadata, type LibraryEntry } from '../../../main/library/index.js';
import { tinyGeoTiff } from '../downloads/fixtures.js';
import { PROCESS_PATHS } from '../downloads/helpers.js';
import { writeGeoTiff } from '../../../simulator/raster/index.js';
import { SMALL_AOI, demoDate, startTestSim, type TestSim } from '../../simulator/helpers.js';

let sim: TestSim;
let date: string;
let work: string;
const never = () => new AbortController().signal;

async function saveComposite(name: string, extra: Record<string, unknown>): Promise<string> {
  const res = await fetch(sim.url + PROCESS_PATHS.composite, {
    method: 'POST',
    headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' },
    body: JSON.stringify({ Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 40, EpsgProjection: 32633, Bandnames: 'rgb', ...extra }),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const file = path.join(work, 'files', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

beforeAll(async () => {
  sim = await startTestSim();
  date = await demoDate(sim);
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'swath-library-'));
  return () => rmSync(work, { recursive: true, force: true });
});

/** SMALL_AOI's lon/lat envelope, which every footprint must contain (outward pixel snapping only grows it). */
function expectCoversSmallAoi(b: [number, number, number, number] | null): void {
  expect(b).not.toBeNull();
  const [w, s, e, n] = b!;
  expect(w).toBeLessThanOrEqual(13.4);
  expect(s).toBeLessThanOrEqual(52.5);
  expect(e).toBeGreaterThanOrEqual(13.43);
  expect(n).toBeGreaterThanOrEqual(52.52);
  expect(e - w).toBeLessThan(0.05);
  expect(n - s).toBeLessThan(0.05);
}

describe('readRasterMetadata', () => {
  it('reads date, model, constellations, band descriptions, EPSG, resolution and 4326 bounds of a UTM composite', async () => {
    const f = await saveComposite('utm.tif', { Bandnames: 'B8,ndvi,[B11_B12]' });
    const m = await readRasterMetadata(f, never());
    expect(m).toMatchObject({
      date, model: 'Stratus2', constellations: ['Sentinel1', 'Sentinel2'], bands: ['B8', '[B8_B4]', '[B11_B12]'],
      epsg: 32633, resolution: 40,
    });
    expectCoversSmallAoi(m.bounds4326);
    expect(m.boundsNote).toBeUndefined();
  });

  it('handles EPSG:4326 and EPSG:3857 outputs', async () => {
    const geo = await readRasterMetadata(await saveComposite('geo.tif', { EpsgProjection: 4326 }), never());
    expect(geo).toMatchObject({ epsg: 4326, resolution: 40 });
    expectCoversSmallAoi(geo.bounds4326);
    const merc = await readRasterMetadata(await saveComposite('merc.tif', { EpsgProjection: 3857 }), never());
    expect(merc.epsg).toBe(3857);
    expectCoversSmallAoi(merc.bounds4326);
  });

  it('leaves bounds4326 null with a note for a CRS it cannot reproject, and names bands generically without descriptions', async () => {
    const f = path.join(work, 'swiss.tif');
    writeFileSync(f, tinyGeoTiff({ epsg: 2056, origin: [2600000, 1200000], pixel: 10 }));
    const m = await readRasterMetadata(f, never());
    expect(m).toMatchObject({ epsg: 2056, resolution: 10, bounds4326: null, date: null, model: null, constellations: [], bands: ['Band 1'] });
    expect(m.boundsNote).toMatch(/EPSG:2056 is not one of the CRSs/);
  });

  it('names the file when it is not a GeoTIFF', async () => {
    const f = path.join(work, 'fake.tif');
    writeFileSync(f, 'not a tiff at all');
    await expect(readRasterMetadata(f, never())).rejects.toMatchObject({ kind: 'validation', message: expect.stringContaining(`${f} is not a readable GeoTIFF`) });
  });
});

describe('boundsTo4326', () => {
  it('transforms UTM north and south and Web Mercator', () => {
    const n = boundsTo4326([499000, 5800000, 501000, 5802000], 32633)!;
    expect(n[0]).toBeCloseTo(14.985, 2);
    expect(n[2]).toBeCloseTo(15.015, 2);
    expect(n[1]).toBeCloseTo(52.34, 1);
    const s = boundsTo4326([500000, 9_999_000, 501000, 10_000_000], 32733)!;
    expect(s[1]).toBeCloseTo(-0.00904, 4);
    expect(s[3]).toBeCloseTo(0, 6);
    expect(s[0]).toBeCloseTo(15, 6);
    const m = boundsTo4326([0, 0, 111319.49, 111325.14], 3857)!;
    expect(m[2]).toBeCloseTo(1, 3);
    expect(m[3]).toBeCloseTo(1, 3);
    expect(boundsTo4326([0, 0, 1, 1], 2056)).toBeNull();
  });
});

describe('LibraryCatalog', () => {
  it('imports, persists across restart, refreshes a re-import, and removes with or without the file', async () => {
    const dir = path.join(work, 'userData');
    const a = await saveComposite('a.tif', {});
    const b = await saveComposite('b.tif', { Bandnames: 'B2' });
    const cat = await LibraryCatalog.open({ dir });
    const added: string[] = [];
    cat.on('added', (e) => added.push(e.id));
    const ea = await cat.importFile(a, never());
    const eb = await cat.importFile(b, never());
    expect(ea).toMatchObject({ path: a, size: readFileSync(a).length, sha256: sha(a), source: 'import', request: null, kind: null, epsg: 32633, date });
    expect(added).toEqual([ea.id, eb.id]);
    expect(cat.count()).toBe(2);

    const again = await LibraryCatalog.open({ dir });
    expect(again.list()).toEqual(cat.list());
    expect(again.get(ea.id)).toEqual(ea);
    expect(again.findByPath(a)?.id).toBe(ea.id);

    const re = await again.importFile(a, never());
    expect(re.id).toBe(ea.id);
    expect(again.list()).toHaveLength(2);

    await again.remove(ea.id, { deleteFile: false }, never());
    expect(existsSync(a)).toBe(true);
    // An imported file is deleted only with main's own confirmation (see test/main/security).
    await again.remove(eb.id, { deleteFile: true, confirmDelete: async () => true }, never());
    expect(existsSync(b)).toBe(false);
    expect(again.list()).toEqual([]);
    await expect(again.remove(eb.id, {}, never())).rejects.toMatchObject({ kind: 'not-found', message: `No library entry with id ${eb.id}.` });
    expect((await LibraryCatalog.open({ dir })).list()).toEqual([]);
  });

  it('records downloads with their request, without any key', async () => {
    const dir = path.join(work, 'userData');
    const f = await saveComposite('d.tif', {});
    const cat = await LibraryCatalog.open({ dir });
    const e = await cat.addDownload({
      path: f, size: readFileSync(f).length, sha256: sha(f), kind: 'composite',
      request: { Wkt: SMALL_AOI, Model: 'Stratus2', 'x-api-key': 'demo-key', nested: { apiKey: 'demo-key' } },
    }, never());
    expect(e).toMatchObject({ source: 'download', kind: 'composite', request: { Wkt: SMALL_AOI, Model: 'Stratus2', nested: {} } });
    await cat.close();
    for (const f of readdirSync(dir).filter((n) => n.startsWith('swath.db'))) expect(readFileSync(path.join(dir, f)).toString('latin1')).not.toContain('demo-key');
    expect(readdirSync(dir)).toContain('swath.db');
  });

  it('finds the file of an identical request from its index, rows of an earlier version too, and never a file gone from disk', async () => {
    const dir = path.join(work, 'userData');
    const f = await saveComposite('same.tif', {});
    const request = { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 40, EpsgProjection: 32633, Bandnames: 'rgb', PixelSelectionMode: 'intersect', SatelliteConstellations: ['Sentinel2', 'Sentinel1'] };
    const cat = await LibraryCatalog.open({ dir });
    const e = await cat.addDownload({ path: f, size: readFileSync(f).length, sha256: sha(f), kind: 'composite', request }, never());
    // The same request in other words: rgb is B4,B3,B2, a date-time of the day, constellations in any order and case.
    const same = { ...request, Bandnames: 'B4,B3,B2', Date: `${date}T00:00:00Z`, SatelliteConstellations: ['sentinel1', 'Sentinel2'] };
    expect((await cat.findIdentical('composite', same))?.id).toBe(e.id);
    for (const other of [{ PixelSelectionMode: 'contained' }, { SatelliteConstellations: ['Sentinel2'] }, { Resolution: 80 }, { DataType: 'UINT8' }, { Bandnames: 'ndvi' }, { Date: '2020-01-01' }, { AllowPartialImage: true }]) {
      expect(await cat.findIdentical('composite', { ...request, ...other })).toBeNull();
    }
    expect(await cat.findIdentical('tile', request)).toBeNull();
    // Answered from an index of swath.db, not a scan of the entries.
    const plan = cat.db.prepare('EXPLAIN QUERY PLAN SELECT rid FROM library WHERE request_key = ?').all('r1-x');
    expect(JSON.stringify(plan)).toContain('library_request');
    // A row recorded before request keys existed is keyed at the next start.
    cat.db.exec('UPDATE library SET request_key = NULL');
    await cat.close();
    const again = await LibraryCatalog.open({ dir });
    expect((await again.findIdentical('composite', request))?.id).toBe(e.id);
    rmSync(f);
    expect(await again.findIdentical('composite', request)).toBeNull();
    await again.close();
  });

  it('reads the same metadata from the bytes a download kept as from the file', async () => {
    const f = await saveComposite('kept.tif', {});
    const g = path.join(work, 'copy.tif');
    copyFileSync(f, g);
    const cat = await LibraryCatalog.open({ dir: path.join(work, 'userData') });
    const bytes = readFileSync(f);
    const base = { size: bytes.length, sha256: sha(f), kind: 'composite' as const, request: { Wkt: SMALL_AOI } };
    const fromFile = await cat.addDownload({ ...base, path: g }, never());
    // A Buffer from Node's pool (a view into a larger buffer) is read as its own bytes only.
    const pooled = Buffer.concat([Buffer.from('junk'), bytes]).subarray(4);
    const fromBytes = await cat.addDownload({ ...base, path: f, content: pooled }, never());
    const strip = ({ id: _i, path: _p, createdAt: _c, series: _s, ...rest }: LibraryEntry) => rest;
    expect(strip(fromBytes)).toEqual(strip(fromFile));
    expect(fromBytes).toMatchObject({ model: 'Stratus2', epsg: 32633, bands: ['B4', 'B3', 'B2'] });
    await cat.close();
  });

  it('refuses missing files, folders and non-GeoTIFFs with the path in the message', async () => {
    const cat = await LibraryCatalog.open({ dir: path.join(work, 'userData') });
    const missing = path.join(work, 'nope.tif');
    await expect(cat.importFile(missing, never())).rejects.toMatchObject({ kind: 'not-found', message: `Cannot import ${missing}: the file does not exist` });
    const folder = path.join(work, 'folder.tif');
    mkdirSync(folder, { recursive: true });
    await expect(cat.importFile(folder, never())).rejects.toMatchObject({ kind: 'validation', message: `Cannot import ${folder}: it is not a regular file.` });
    await expect(cat.importFile(work, never())).rejects.toMatchObject({ kind: 'validation', message: `Cannot import ${work}: only .tif and .tiff files can be imported.` });
    const junk = path.join(work, 'junk.tif');
    writeFileSync(junk, 'junk');
    await expect(cat.importFile(junk, never())).rejects.toThrow(`${junk} is not a readable GeoTIFF`);
    expect(cat.list()).toEqual([]);
  });

  it('honours an aborted signal', async () => {
    const cat = await LibraryCatalog.open({ dir: path.join(work, 'userData') });
    const f = await saveComposite('x.tif', {});
    const ac = new AbortController();
    ac.abort();
    await expect(cat.importFile(f, ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(cat.list()).toEqual([]);
  });

  it('sets an unreadable catalog aside and starts empty', async () => {
    const dir = path.join(work, 'userData');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, LIBRARY_FILE), JSON.stringify({ version: 1, entries: [{ id: 1 }] }));
    const warnings: string[] = [];
    const cat = await LibraryCatalog.open({ dir, onWarning: (w) => warnings.push(w) });
    expect(cat.list()).toEqual([]);
    expect(warnings[0]).toMatch(/library\.json does not match the catalog format: entries\.0\.id/);
    expect(readdirSync(dir).some((n) => n.startsWith(`${LIBRARY_FILE}.corrupt-`))).toBe(true);
  });
});

describe('background hashing of downloads', () => {
  it('records a download at once and fills in its sha256 after, emitting updated, also after a restart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-lib-hash-'));
    try {
      const file = path.join(dir, 'a.tif');
      await writeGeoTiff({
        aoi: { type: 'Polygon', coordinates: [[[13.4, 52.5], [13.42, 52.5], [13.42, 52.51], [13.4, 52.51], [13.4, 52.5]]] },
        date: '2026-06-01', epsg: 32633, resolution: 80, bands: [{ kind: 'band', name: 'B4' }], dataType: 'INT16',
        pixelSelection: 'intersect', tags: { IMAGE_DATE: '20260601', MODEL_VERSION: 'x', IMAGE_VERSION: '1', CONSTELLATIONS: 'Sentinel2' },
      }, file);
      const expected = createHash('sha256').update(readFileSync(file)).digest('hex');
      const lib = await LibraryCatalog.open({ dir });
      const updated: string[] = [];
      lib.on('updated', (e) => updated.push(e.sha256 ?? 'null'));
      const entry = await lib.addDownload({ path: file, size: 1, sha256: null, kind: 'composite', request: {} }, new AbortController().signal);
      expect(entry.sha256).toBeNull();
      await lib.flush();
      expect(lib.get(entry.id)!.sha256).toBe(expected);
      expect(updated).toEqual([expected]);
      // Recorded but not hashed before a crash: the next open hashes what is missing.
      const lib2 = await LibraryCatalog.open({ dir });
      const e2 = await lib2.addDownload({ path: file, size: 1, sha256: null, kind: 'composite', request: {} }, new AbortController().signal);
      const lib3 = await LibraryCatalog.open({ dir });
      await lib3.flush();
      expect(lib3.get(e2.id)!.sha256).toBe(expected);
      await lib2.flush();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
