import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportTargetRequest } from '../../../main/exports/handlers';
import { createDispatcher, type Dispatcher } from '../../../main/ipc';
import { MemoryKeychainBackend } from '../../../main/profiles';
import { createApp, type SwathApp } from '../../../main/app/app';
import { startSimulator } from '../../../simulator';
import { FIXTURES, fixturePath } from '../../fixtures/rasters';
import { cogValid } from '../geotiff/cog-validator';
import { problems, stacValidators, validateCatalogFolder } from './stac-validator';

// The export channels through the dispatcher, as the renderer reaches them, on
// a library of the GDAL-written fixtures; the files written are validated
// against the vendored STAC and GeoJSON schemas.

const SENDER = 'app://swath/index.html';

describe('export services', () => {
  let dir: string;
  let app: SwathApp;
  let d: Dispatcher;
  /** What the fake save dialog answers next (undefined: the browser host, no dialog). */
  let answer: string | null = null;
  const asked: ExportTargetRequest[] = [];
  const call = async (channel: string, payload: unknown = {}) => d.dispatch(channel, payload, SENDER) as Promise<any>;
  const v = stacValidators();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-export-'));
    app = await createApp({
      userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), version: '0.0.0', platform: 'linux', startSimulator,
      emit: () => undefined, keychainBackend: new MemoryKeychainBackend(),
      chooseExportPath: async (r) => {
        asked.push(r);
        return answer;
      },
    });
    d = createDispatcher(app.handlers, { isAllowedSender: (u) => u === SENDER, secrets: app.secrets });
    const imported = await call('library:import', { paths: FIXTURES.map((f) => fixturePath(f.name)) });
    expect(imported.ok).toBe(true);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports the whole library as a STAC catalog that validates, with relative asset hrefs to the files', async () => {
    answer = path.join(dir, 'share', 'my-catalog');
    const res = await call('export:stac', {});
    expect(res.ok, JSON.stringify(res.error)).toBe(true);
    expect(asked.at(-1)).toMatchObject({ kind: 'folder', defaultPath: expect.stringContaining(path.join(dir, 'Downloads', 'exports', 'stac-')) });
    expect(res.data).toMatchObject({ cancelled: false, dir: answer, items: FIXTURES.length, skipped: [] });
    const { catalog, items, errors } = validateCatalogFolder(answer, v);
    expect(errors).toEqual([]);
    expect(catalog).toMatchObject({ type: 'Catalog', stac_version: '1.0.0' });
    expect(items).toHaveLength(FIXTURES.length);
    expect(items.filter((i) => i.json.bbox).length).toBeGreaterThan(FIXTURES.length / 2);
    const entries = (await call('library:query', { limit: 500 })).data.entries as any[];
    for (const f of FIXTURES) {
      const entry = entries.find((e) => e.path === fixturePath(f.name));
      const item = items.find((i) => i.json.id === entry.id)!.json;
      expect(item.properties.datetime).toBe(`${f.date}T00:00:00Z`);
      expect(item.properties['proj:epsg']).toBe(f.epsg);
      expect(item.properties['proj:shape']).toEqual([f.height, f.width]);
      if (entry.bounds4326) {
        expect(item.bbox).toEqual(entry.bounds4326);
        expect(item.geometry.coordinates[0]).toContainEqual([entry.bounds4326[0], entry.bounds4326[1]]);
      } else {
        // Unknown footprint: STAC's null geometry, and then no bbox.
        expect(item.geometry).toBeNull();
        expect(item.bbox).toBeUndefined();
      }
      expect(item.assets.data['eo:bands'].map((b: any) => b.name)).toEqual(entry.bands);
      const href = item.assets.data.href as string;
      expect(path.isAbsolute(href)).toBe(false);
      expect(href).not.toContain('\\');
      const itemFile = items.find((i) => i.json.id === entry.id)!.file;
      expect(path.resolve(path.dirname(itemFile), href)).toBe(entry.path);
    }
    // No staging folder left beside it.
    expect(readdirSync(path.join(dir, 'share'))).toEqual(['my-catalog']);
  });

  it('a broken item does not validate (the validator is live)', () => {
    const { items } = validateCatalogFolder(path.join(dir, 'share', 'my-catalog'), v);
    const item = structuredClone(items[0]!.json);
    delete item.properties.datetime;
    expect(problems(v.item, item).length).toBeGreaterThan(0);
    const proj = structuredClone(items[0]!.json);
    proj.properties['proj:epsg'] = 'EPSG:32633';
    expect(problems(v.extension(proj.stac_extensions[0]), proj).length).toBeGreaterThan(0);
  });

  it('exports a selection, replaces an earlier export in place, and refuses a foreign non-empty folder', async () => {
    const entries = (await call('library:query', { limit: 500 })).data.entries as any[];
    answer = path.join(dir, 'share', 'my-catalog');
    const res = await call('export:stac', { ids: [entries[0].id, entries[2].id], title: 'Berlin fields' });
    expect(res.data).toMatchObject({ items: 2 });
    const { catalog, items, errors } = validateCatalogFolder(answer, v);
    expect(errors).toEqual([]);
    expect(catalog.title).toBe('Berlin fields');
    expect(items.map((i) => i.json.id).sort()).toEqual([entries[0].id, entries[2].id].sort());
    // The two item folders, the catalog and the manifest of what this export wrote.
    expect(readdirSync(answer).filter((n) => n !== 'catalog.json' && n !== 'swath-export.json')).toHaveLength(2);
    expect(readdirSync(answer)).toContain('swath-export.json');

    const foreign = path.join(dir, 'share', 'notes');
    mkdirSync(foreign, { recursive: true });
    writeFileSync(path.join(foreign, 'todo.txt'), 'keep me');
    answer = foreign;
    const refused = await call('export:stac', {});
    expect(refused.ok).toBe(false);
    expect(refused.error.kind).toBe('validation');
    expect(readdirSync(foreign)).toEqual(['todo.txt']);
    expect(readdirSync(path.join(dir, 'share')).sort()).toEqual(['my-catalog', 'notes']);

    const unknown = await call('export:stac', { ids: ['nope'] });
    expect(unknown.error.kind).toBe('not-found');
  });

  it('writes nothing when the dialog is cancelled', async () => {
    answer = null;
    const before = existsSync(path.join(dir, 'Downloads', 'exports')) ? readdirSync(path.join(dir, 'Downloads', 'exports')) : [];
    expect((await call('export:stac', {})).data).toMatchObject({ cancelled: true, dir: null, items: 0 });
    expect((await call('export:geojson', { name: 'aoi', features: [{ layer: 'aoi', geometry: null }] })).data).toMatchObject({ cancelled: true, file: null });
    const after = existsSync(path.join(dir, 'Downloads', 'exports')) ? readdirSync(path.join(dir, 'Downloads', 'exports')) : [];
    expect(after).toEqual(before);
  });

  it('exports the AOI and orders as one GeoJSON FeatureCollection that validates', async () => {
    answer = path.join(dir, 'share', 'berlin.geojson');
    const aoi = { type: 'Polygon', coordinates: [[[13.4, 52.5], [13.43, 52.5], [13.43, 52.52], [13.4, 52.52], [13.4, 52.5]]] };
    const order = { type: 'Polygon', coordinates: [[[13.3, 52.4], [13.6, 52.4], [13.6, 52.6], [13.3, 52.6], [13.3, 52.4]]] };
    const res = await call('export:geojson', {
      name: 'berlin',
      features: [
        { layer: 'aoi', geometry: aoi, properties: { areaKm2: 7.1 } },
        { layer: 'order', id: 'ord-1', geometry: order, properties: { OrderId: 'ord-1', Status: 'Active', Constellations: ['S2'] } },
      ],
    });
    expect(res.data).toMatchObject({ cancelled: false, file: answer, features: 2 });
    expect(asked.at(-1)).toMatchObject({ kind: 'file', extensions: ['geojson', 'json'] });
    const fc = JSON.parse(readFileSync(answer, 'utf8'));
    expect(problems(v.featureCollection, fc)).toEqual([]);
    expect(fc.features.map((f: any) => f.properties['swath:layer'])).toEqual(['aoi', 'order']);
    expect(fc.features[1]).toMatchObject({ id: 'ord-1', geometry: order, properties: { Status: 'Active', Constellations: '["S2"]' } });
    // A malformed geometry never reaches the file.
    const bad = await call('export:geojson', { name: 'x', features: [{ layer: 'aoi', geometry: { type: 'Circle' } }] });
    expect(bad.error.kind).toBe('validation');
  });

  it('gives a change layer its period (start/end_datetime, datetime null) and COG assets the cloud-optimized media type, as GDAL\'s validator judges the files', async () => {
    // A change layer between two fixture dates, saved by Swath's writer (recorded in the library).
    const entries = (await call('library:query', { limit: 500 })).data.entries as any[];
    const a = entries.find((e) => e.path === fixturePath('utm33n-cog'))!;
    const b = entries.find((e) => e.path === fixturePath('wgs84-ndvi-index'))!;
    const change = await call('analysis:change', { expression: 'ndvi', fromId: a.id, toId: b.id });
    expect(change.ok, JSON.stringify(change.error)).toBe(true);
    const saved = await call('analysis:change-save', { id: change.data.id });
    expect(saved.ok, JSON.stringify(saved.error)).toBe(true);
    // A file that is not a COG: stored as strips 1100 px wide.
    const plain = path.join(dir, 'plain-striped.tif');
    execFileSync('gdal_translate', ['-q', '-of', 'GTiff', '-outsize', '1100', '1100', '-co', 'TILED=NO', fixturePath('utm33n-cog'), plain]);
    expect((await call('library:import', { paths: [plain] })).ok).toBe(true);

    answer = path.join(dir, 'share', 'periods');
    const res = await call('export:stac', {});
    expect(res.ok, JSON.stringify(res.error)).toBe(true);
    const { items, errors } = validateCatalogFolder(answer, v);
    expect(errors).toEqual([]);
    const all = (await call('library:query', { limit: 500 })).data.entries as any[];
    const itemOf = (path: string) => items.find((i) => i.json.id === all.find((e) => e.path === path)!.id)!.json;

    const ch = itemOf(saved.data.file);
    expect(ch.properties).toMatchObject({ datetime: null, start_datetime: '2026-06-14T00:00:00Z', end_datetime: '2026-06-24T00:00:00Z' });
    // A period without one of its ends does not validate (the schema is live for it).
    const half = structuredClone(ch);
    delete half.properties.end_datetime;
    expect(problems(v.item, half).length).toBeGreaterThan(0);
    expect(itemOf(fixturePath('utm33n-cog')).properties.start_datetime).toBeUndefined();

    // The media type says cloud-optimized exactly where GDAL's validator says the file is a COG.
    for (const file of [saved.data.file, plain, ...FIXTURES.map((f) => fixturePath(f.name))]) {
      const expected = cogValid(file) ? 'image/tiff; application=geotiff; profile=cloud-optimized' : 'image/tiff; application=geotiff';
      expect(itemOf(file).assets.data.type, file).toBe(expected);
    }
    expect(cogValid(saved.data.file)).toBe(true);
    expect(cogValid(plain)).toBe(false);
  });
});

/** An app core as the browser host runs it (no save dialog), with a dispatcher call. */
async function withBrowserApp(body: (dir: string, call: (channel: string, payload?: unknown) => Promise<any>) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-export-b-'));
  const app = await createApp({ userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), version: '0.0.0', platform: 'linux', startSimulator, emit: () => undefined, keychainBackend: new MemoryKeychainBackend() });
  try {
    const d = createDispatcher(app.handlers, { isAllowedSender: () => true, secrets: app.secrets });
    await body(dir, async (channel, payload = {}) => d.dispatch(channel, payload, SENDER) as Promise<any>);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('export services in the browser host (no dialog)', () => {
  it('writes under <download folder>/exports', async () => {
    await withBrowserApp(async (dir, call) => {
      expect((await call('export:stac', {})).error.kind).toBe('validation'); // empty library
      await call('library:import', { paths: [fixturePath(FIXTURES[0]!.name)] });
      const res = await call('export:stac', {});
      expect(res.data.dir.startsWith(path.join(dir, 'Downloads', 'exports', 'stac-'))).toBe(true);
      expect(validateCatalogFolder(res.data.dir).errors).toEqual([]);
    });
  });
});

describe('export services: default names', () => {
  it('two exports in the same second get two folders', async () => {
    await withBrowserApp(async (_dir, call) => {
      await call('library:import', { paths: [fixturePath(FIXTURES[0]!.name)] });
      const a = await call('export:stac', {});
      const b = await call('export:stac', {});
      expect(b.data.dir).not.toBe(a.data.dir);
      expect(existsSync(a.data.catalogFile) && existsSync(b.data.catalogFile)).toBe(true);
    });
  });
});

describe('export services: a CSV never written over unasked', () => {
  it('refuses an existing file (it stays as it was), writes a numbered one on rename, and replaces only when asked', async () => {
    await withBrowserApp(async (dir, call) => {
      const name = 'swath-series-ndvi-aoi-13.415E52.507N-0.753km2-2026-04-10_2026-08-20';
      const file = path.join(dir, 'Downloads', 'exports', `${name}.csv`);
      const first = await call('export:csv', { name, csv: 'date_utc,mean\n2026-04-10,0.5\n' });
      expect(first.data).toEqual({ cancelled: false, file, exists: false });
      expect(readFileSync(file, 'utf8')).toBe('date_utc,mean\n2026-04-10,0.5\n');

      writeFileSync(file, 'the analyst edited this\n');
      const again = await call('export:csv', { name, csv: 'date_utc,mean\n' });
      expect(again.data).toEqual({ cancelled: false, file, exists: true });
      expect(readFileSync(file, 'utf8')).toBe('the analyst edited this\n');

      const renamed = await call('export:csv', { name, csv: 'date_utc,mean\n', onExisting: 'rename' });
      expect(renamed.data.file).toBe(file.replace(/\.csv$/, '-2.csv'));
      const third = await call('export:csv', { name, csv: 'date_utc,mean\n', onExisting: 'rename' });
      expect(third.data.file).toBe(file.replace(/\.csv$/, '-3.csv'));
      expect(readFileSync(file, 'utf8')).toBe('the analyst edited this\n');

      const replaced = await call('export:csv', { name, csv: 'date_utc,mean\n2026-08-20,0.7\n', onExisting: 'replace' });
      expect(replaced.data).toEqual({ cancelled: false, file, exists: false });
      expect(readFileSync(file, 'utf8')).toBe('date_utc,mean\n2026-08-20,0.7\n');

      // A name is a stem: no folders, no way out of the exports folder.
      for (const bad of ['../up', 'a/b', '', '.hidden']) {
        const r = await call('export:csv', { name: bad, csv: 'x\n' });
        expect(r.error.kind, bad).toBe('validation');
      }
    });
  });
});
