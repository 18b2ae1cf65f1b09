import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { channelNames } from '../../preload/contract';
import { fixturePath, gdalRecord } from '../fixtures/rasters';
import { LIBRARY_FILE, LibraryCatalog } from '../../main/library';
import { DATABASE_FILE, openDatabase } from '../../main/shared/database';
import { pixelGridOf, type FieldsTask, type FieldsTaskResult } from '../../main/fields/stats/compute';
import { decodeChunk, gridKeyOf } from '../../main/fields/stats/packed';
import { packParcels } from '../main/fields/stats/support';
import { readGeoTiffHeader } from '../../main/geotiff';

/**
 * Builds the app with electron-vite and boots the built main bundle in plain
 * Node against a fake `electron` (the real binary is not needed), so bundling
 * mistakes (ESM interop, a preload that requires a package, wrong paths) fail here.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
// The run's one build (test/support/app-build.ts), inside the repo so the bundle resolves its
// external dependencies from node_modules.
const outDir = process.env.SWATH_E2E_BUILD!;
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
// The booted main is an installed build (app.isPackaged), which ignores SWATH_USER_DATA_DIR: its
// userData is the OS default under XDG_CONFIG_HOME, pointed at a temp folder.
const configHome = mkdtempSync(join(tmpdir(), 'swath-bundle-'));
const userData = join(configHome, 'Swath');

beforeAll(() => {
  if (!outDir || !existsSync(join(outDir, 'main/index.js'))) throw new Error('SWATH_E2E_BUILD names no build: run this file in the integration part (vitest --project integration)');
});

afterAll(() => {
  rmSync(configHome, { recursive: true, force: true });
});

describe('electron-vite build output', () => {
  it('produces the ESM main, the CommonJS preload and the renderer', () => {
    for (const file of ['main/index.js', 'preload/index.cjs', 'renderer/index.html']) {
      expect(existsSync(join(outDir, file)), file).toBe(true);
    }
  });

  it('bundles the sandboxed preload so that it requires nothing but electron', () => {
    const preload = readFileSync(join(outDir, 'preload/index.cjs'), 'utf8');
    const required = [...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
    expect(new Set(required)).toEqual(new Set(['electron']));
    expect(preload).toContain('exposeInMainWorld');
  });

  it('keeps the CSP meta tag and no inline script in the built renderer', () => {
    const html = readFileSync(join(outDir, 'renderer/index.html'), 'utf8');
    expect(html).toMatch(/http-equiv="Content-Security-Policy"/);
    expect(html).toMatch(/script-src 'self'/);
    for (const [, attrs, body] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(attrs).toMatch(/src="\.\//);
      expect(body!.trim()).toBe('');
    }
  });

  // electron-vite puts its CommonJS shim (__filename, __dirname, require) after the last text its
  // regex takes for an import statement; the word "import" before a quote in a message string
  // puts it inside that string.
  it('puts the CommonJS shim of every main bundle right after its import statements', () => {
    const files = [...readdirSync(join(outDir, 'main')).map((f) => join('main', f)), ...readdirSync(join(outDir, 'main/chunks')).map((f) => join('main/chunks', f))]
      .filter((f) => f.endsWith('.js'));
    let shimmed = 0;
    for (const file of files) {
      const code = readFileSync(join(outDir, file), 'utf8');
      const at = code.indexOf('\nconst __filename = import.meta.filename;\n');
      if (at < 0) continue;
      shimmed++;
      const before = code.slice(0, at).split('\n').filter((l) => l.trim() !== '');
      expect(before.filter((l) => !/^import .*;$/.test(l)), file).toEqual([]);
    }
    expect(shimmed).toBeGreaterThan(0);
  });

  it('boots the built main: secure window, embedded simulator answering, key withheld, clean quit', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', join(fixtures, 'register-fake-electron.mjs'), join(fixtures, 'boot-main.mjs'), join(outDir, 'main/index.js'), join(outDir, 'renderer/index.html')],
      { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, XDG_CONFIG_HOME: configHome, ELECTRON_RENDERER_URL: '' } },
    );
    const line = run.stdout.split('\n').find((l) => l.startsWith('REPORT '));
    expect(line, `main did not report:\n${run.stdout}\n${run.stderr}`).toBeDefined();
    const report = JSON.parse(line!.slice('REPORT '.length));

    expect([...report.channels].sort()).toEqual([...channelNames].sort());
    expect(report.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, webSecurity: true });
    expect(report.webPreferences.preload).toBe(join(outDir, 'preload/index.cjs'));
    // The renderer comes from app://swath/ (the built folder, nothing else), never file://.
    expect(report.loaded).toBe('app://swath/index.html');
    expect(report.page).toMatchObject({ status: 200, csp: expect.stringContaining("default-src 'self'"), html: expect.stringContaining('<html') });
    expect(report.traversal).toBe(404);
    expect(report.fileSender).toMatchObject({ ok: false, error: { kind: 'auth' } });

    expect(report.info).toMatchObject({
      ok: true,
      data: { version: '0.0.0-test', service: { label: 'Demo service (offline)', demo: true }, contractVersion: '1.0.0' },
    });
    expect(report.info.data.service.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(report.ping).toMatchObject({ ok: true, data: { reachable: true } });
    expect(report.invalid).toMatchObject({ ok: false, error: { kind: 'validation', fields: { extra: ['Unknown field.'] } } });
    expect(report.foreign).toMatchObject({ ok: false, error: { kind: 'auth' } });
    expect(JSON.stringify(report)).not.toContain('demo-key');
    expect(report.events).toContainEqual(['connection:state', { state: 'online' }]);
    expect(report.quit).toBe(true);
    // The demo service ran in a utility process from the bundled child entry, and exited on quit.
    expect(report.utilityProcesses).toEqual([
      expect.objectContaining({ modulePath: join(outDir, 'main/simulator-child.js'), args: [], serviceName: 'Swath demo service', exitCode: 0 }),
    ]);
    expect(existsSync(join(outDir, 'main/overview-worker.js'))).toBe(true);
    // The simulator kept its state where the app said.
    expect(existsSync(join(userData, 'demo-state.json'))).toBe(true);
    // Main logged to the rotating file in the OS log folder (inside userData on Linux), redacted.
    const logText = readFileSync(join(userData, 'logs', 'main.log'), 'utf8');
    expect(logText).toMatch(/\[info\] /);
    expect(logText).not.toContain('demo-key');
  });

  it('builds the analysis worker as its own entry, which reads a GeoTIFF in a worker thread of the bundle', async () => {
    const entry = join(outDir, 'main/analysis-worker.js');
    expect(existsSync(entry)).toBe(true);
    const rec = gdalRecord('utm33n-cog');
    const at = rec.geo[0]!;
    // workerData {} as main/analysis/pool.ts passes it (geotiff.js pulls in web-worker, which reads it).
    const worker = new Worker(entry, { workerData: {}, execArgv: [] });
    try {
      const reply = await new Promise<{ ok: boolean; result: { col: number; row: number; value: number } }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage({ id: 1, task: { op: 'point', file: fixturePath('utm33n-cog'), spec: { kind: 'band', band: 'B8', label: 'B8' }, point: [at.lon, at.lat] } });
      });
      expect(reply.ok).toBe(true);
      expect([reply.result.col, reply.result.row]).toEqual([at.pixel, at.line]);
      const b8 = rec.bands[3]!;
      expect(reply.result.value).toBeCloseTo(at.values[3]! * (b8.scale ?? 1e-4) + (b8.offset ?? 0), 12);
    } finally {
      await worker.terminate();
    }
  });

  it('builds the field statistics worker as its own entry, which reads a parcel\'s pixels of a GeoTIFF in a worker thread of the bundle', async () => {
    const entry = join(outDir, 'main/fields-stats-worker.js');
    expect(existsSync(entry)).toBe(true);
    const rec = gdalRecord('utm33n-cog');
    const at = rec.geo[0]!;
    const { epsg, grid } = pixelGridOf(await readGeoTiffHeader(fixturePath('utm33n-cog'), new AbortController().signal));
    // A parcel of about 20 cm around the point: inside its one pixel.
    const d = 1e-6;
    const ring = [[at.lon - d, at.lat - d], [at.lon + d, at.lat - d], [at.lon + d, at.lat + d], [at.lon - d, at.lat + d], [at.lon - d, at.lat - d]];
    const worker = new Worker(entry, { workerData: {}, execArgv: [] });
    try {
      const reply = await new Promise<{ ok: boolean; result: FieldsTaskResult }>((resolve, reject) => {
        worker.on('message', (m: { ok?: boolean }) => { if ('ok' in m) resolve(m as never); });
        worker.once('error', reject);
        worker.postMessage({ id: 1, task: {
          op: 'fields', gridKey: gridKeyOf(epsg, grid), files: [{ rasterId: 'r', file: fixturePath('utm33n-cog') }], spec: { kind: 'band', band: 'B8', label: 'B8' },
          rule: 'exact', crs: { epsg: 4326, proj4: '+proj=longlat +datum=WGS84 +no_defs' }, parcels: packParcels([{ index: 0, parts: [[ring]] }]), coverage: null,
        } satisfies FieldsTask });
      });
      expect(reply.ok).toBe(true);
      const r = reply.result.rasters[0]!;
      if (!('values' in r)) throw new Error(r.skip);
      const b8 = rec.bands[3]!;
      expect(r.values[0]).toBeCloseTo(at.values[3]! * (b8.scale ?? 1e-4) + (b8.offset ?? 0), 12);
      expect(decodeChunk(reply.result.coverage!.blob).cells.length).toBe(1);
    } finally {
      await worker.terminate();
    }
  });

  it("builds the library's query thread as its own entry, which answers a page from swath.db in a worker thread of the bundle", async () => {
    const entry = join(outDir, 'main/library-query-worker.js');
    expect(existsSync(entry)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'swath-query-bundle-'));
    const raster = { id: 'r1', path: join(dir, 'scene_ndvi.tif'), size: 1, sha256: null, request: null, kind: null, date: '2026-03-01', model: 'Stratus2', constellations: ['Sentinel2'], bands: ['[B8_B4]'], epsg: 32633, resolution: 10, width: 4, height: 4, bounds4326: [13.4, 52.5, 13.43, 52.52], createdAt: '2026-03-02T00:00:00.000Z', source: 'import' };
    writeFileSync(join(dir, LIBRARY_FILE), JSON.stringify({ version: 1, entries: [raster] }));
    const cat = await LibraryCatalog.open({ dir });
    const worker = new Worker(entry, { execArgv: [] });
    try {
      const reply = await new Promise<{ ok: boolean; result: { total: number; entries: { id: string }[] } }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage({ id: 1, task: { file: join(dir, DATABASE_FILE), query: { limit: 10, text: 'ndvi' } } });
      });
      expect(reply.ok).toBe(true);
      expect(reply.result.total).toBe(1);
      expect(reply.result.entries.map((e) => e.id)).toEqual(['r1']);
    } finally {
      await worker.terminate();
      await cat.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('builds the fields import worker as its own entry, which imports a GeoJSON into swath.db in a worker thread of the bundle', async () => {
    const entry = join(outDir, 'main/fields-import-worker.js');
    expect(existsSync(entry)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'swath-fields-bundle-'));
    const opened = await openDatabase({ dir });
    const file = join(dir, 'fields.geojson');
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { pid: 'a' }, geometry: { type: 'Polygon', coordinates: [[[15, 50], [15.01, 50], [15.01, 50.01], [15, 50.01], [15, 50]]] } }] }));
    const worker = new Worker(entry, { workerData: {}, execArgv: [] });
    try {
      const reply = await new Promise<{ ok: boolean; result: { count: number; skipped: number } }>((resolve, reject) => {
        worker.on('message', (m: { ok?: boolean }) => { if ('ok' in m) resolve(m as never); });
        worker.once('error', reject);
        worker.postMessage({ id: 1, task: { op: 'import', dbFile: join(dir, DATABASE_FILE), file, setId: 's1', name: 'fields', layer: null, idColumn: 'pid', nameColumn: null, createdAt: '2026-03-02T00:00:00.000Z' } });
      });
      expect(reply).toMatchObject({ ok: true, result: { count: 1, skipped: 0 } });
      expect(opened.db.prepare("SELECT state, count FROM parcel_set WHERE id = 's1'").get()).toEqual({ state: 'ready', count: 1 });
    } finally {
      await worker.terminate();
      opened.db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("builds the database's WAL checkpoint worker as its own entry, which checkpoints swath.db's whole log in a worker thread of the bundle", async () => {
    const entry = join(outDir, 'main/wal-checkpoint-worker.js');
    expect(existsSync(entry)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'swath-checkpoint-bundle-'));
    const opened = await openDatabase({ dir });
    opened.db.exec('PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (3)');
    const worker = new Worker(entry, { workerData: { file: join(dir, DATABASE_FILE) }, execArgv: [] });
    try {
      const reply = await new Promise<{ busy: number; log: number; checkpointed: number }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage('go');
      });
      expect(reply.busy).toBe(0);
      expect(reply.log).toBeGreaterThan(0);
      expect(reply.checkpointed).toBe(reply.log);
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('close');
      await exited;
    } finally {
      await worker.terminate();
      opened.db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the chart library (uPlot) out of the first paint: only a lazily loaded chunk has it', () => {
    const html = readFileSync(join(outDir, 'renderer/index.html'), 'utf8');
    const initial = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
    expect(initial.length).toBeGreaterThan(0);
    // "u-over" is uPlot's own class name for its cursor layer: a string of its code, kept by minification.
    for (const f of initial) expect(readFileSync(join(outDir, 'renderer', f), 'utf8'), f).not.toContain('u-over');
    const lazy = readdirSync(join(outDir, 'renderer/assets')).filter((f) => f.endsWith('.js') && !initial.includes(`assets/${f}`));
    expect(lazy.filter((f) => readFileSync(join(outDir, 'renderer/assets', f), 'utf8').includes('u-over')).length).toBeGreaterThan(0);
  });

  it("loads a rail panel's chunks together when it opens, and the shell's other lazy parts without preload links", () => {
    const html = readFileSync(join(outDir, 'renderer/index.html'), 'utf8');
    const entry = /src="\.\/(assets\/index-[^"]+\.js)"/.exec(html)![1]!;
    const code = readFileSync(join(outDir, 'renderer', entry), 'utf8');
    // Vite's preload list: the files, then each dynamic import with the indexes of what loads with it.
    const files = JSON.parse(/m\.f=(\[[^\]]*\])/.exec(code)![1]!) as string[];
    const depsOf = (chunk: string) => {
      // Its preload list follows the loader: `__vite__mapDeps([indexes])`, or `[]` when nothing loads with it.
      const m = new RegExp(`import\\("\\./${chunk}-[\\w-]+\\.js"\\)[^)]*\\)?[^)]*?(?:__vite__mapDeps\\(\\[([\\d,]*)\\]\\)|,\\[\\],)`).exec(code);
      expect(m, `the entry imports ${chunk} through Vite's preload`).not.toBeNull();
      return (m![1] ?? '').split(',').filter(Boolean).map((i) => files[Number(i)]!);
    };
    // The Library's own chunks (its virtualized list among them) are asked for with the panel's.
    const library = depsOf('LibraryPanel');
    expect(library.some((f) => /^\.\/virtual-rows-.*\.js$/.test(f)), library.join(' ')).toBe(true);
    // The panel open at start (its chunks come while the map draws) and the downloads tray (part of
    // the shell, loaded once the start settles): nothing preloaded.
    expect(depsOf('ImageryPanel')).toEqual([]);
    expect(depsOf('DownloadsTray')).toEqual([]);
    // One stylesheet, linked from the page: opening a panel inserts none (each was a recalculation of the page's style).
    expect(files.filter((f) => f.endsWith('.css'))).toEqual([]);
    const sheets = readdirSync(join(outDir, 'renderer/assets')).filter((f) => f.endsWith('.css'));
    expect(sheets).toHaveLength(1);
    expect(html).toContain(`href="./assets/${sheets[0]}"`);
  });

  it('ships the licences of the production dependencies, generated at build time, and the window icon', () => {
    const licenses = JSON.parse(readFileSync(join(outDir, 'main/licenses.json'), 'utf8')) as { name: string; license: string }[];
    const byName = new Map(licenses.map((l) => [l.name, l.license]));
    expect(byName.get('vue')).toBe('MIT');
    expect(byName.get('electron-updater')).toBe('MIT');
    expect(byName.has('@github/keytar')).toBe(true);
    // Development tools never ship, so they are not listed.
    for (const dev of ['vitest', 'electron', 'electron-builder', 'typescript', '@resvg/resvg-js']) expect(byName.has(dev), dev).toBe(false);
    const main = readFileSync(join(outDir, 'main/index.js'), 'utf8');
    const icon = /["']([^"']*512x512[^"']*\.png)["']/.exec(main);
    expect(icon, 'the main bundle refers to the icon asset').not.toBeNull();
  });
});
