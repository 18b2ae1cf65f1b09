import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../main/ipc';
import { MemoryKeychainBackend } from '../../../main/profiles';
import { serveLibraryFile } from '../../../main/library';
import { createApp, type SwathApp } from '../../../main/app/app';
import { startSimulator } from '../../../simulator';
import { FIXTURES, fixturePath, gdalRecord } from '../../fixtures/rasters';

// The library as the renderer reaches it (the dispatcher over the app core): importing the
// GDAL-written fixtures, their metadata against GDAL's, previews of non-COG files through a
// cached overview copy, removal with and without the file, and persistence across a restart.

const SENDER = 'app://swath/index.html';

describe('library through the app core', () => {
  let dir: string;
  let app: SwathApp;
  let d: Dispatcher;
  const events: { event: string; payload: any }[] = [];
  const keychain = new MemoryKeychainBackend();
  const start = async () => {
    app = await createApp({
      userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), version: '1.0.0', platform: 'linux', startSimulator,
      emit: (event, payload) => events.push({ event, payload }), keychainBackend: keychain,
    });
    d = createDispatcher(app.handlers, { isAllowedSender: (u) => u === SENDER, secrets: app.secrets });
  };
  const call = (channel: string, payload: unknown = {}) => d.dispatch(channel, payload, SENDER) as Promise<any>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-lib-'));
    for (const f of FIXTURES) copyFileSync(fixturePath(f.name), path.join(dir, f.file));
    await start();
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports GeoTIFFs and records what GDAL reads: size, EPSG, bands, date, resolution', async () => {
    const res = await call('library:import', { paths: FIXTURES.map((f) => path.join(dir, f.file)) });
    expect(res.ok, JSON.stringify(res.error)).toBe(true);
    expect(res.data.entries).toHaveLength(FIXTURES.length);
    for (const f of FIXTURES) {
      const rec = gdalRecord(f.name);
      const e = res.data.entries.find((x: any) => x.path === path.join(dir, f.file));
      expect([e.width, e.height], f.name).toEqual(rec.size);
      expect(e.epsg, f.name).toBe(rec.epsg);
      expect(e.bands, f.name).toEqual(rec.bands.map((b) => b.description));
      expect(e.date, f.name).toBe(rec.metadata.IMAGE_DATE);
      expect(e.model, f.name).toBe('Stratus2');
      expect(e.source).toBe('import');
      const px = Math.abs(rec.geoTransform[1]!);
      expect(e.resolution, f.name).toBeCloseTo(rec.epsg === 4326 ? px * 111320 : px, 3);
      if (rec.wgs84Extent && e.bounds4326) {
        const lons = rec.wgs84Extent.map((p) => p[0]);
        expect(e.bounds4326[0]).toBeCloseTo(Math.min(...lons), 3);
      }
    }
    expect(events.filter((e) => e.event === 'library:changed').length).toBeGreaterThanOrEqual(FIXTURES.length);
    const bad = await call('library:import', { paths: [path.join(dir, 'missing.tif')] });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'not-found' } });
  });

  it('previews a striped file through an overview copy (with progress), served by the raster protocol with Range', async () => {
    const list = (await call('library:query', { limit: 500 })).data.entries;
    const striped = list.find((e: any) => e.path.endsWith('utm33n-striped.tif'));
    const cog = list.find((e: any) => e.path.endsWith('utm33n-cog.tif'));
    expect((await call('library:preview', { id: cog.id })).data).toMatchObject({ state: 'not-needed', rasterId: cog.id });
    const p = await call('library:preview', { id: striped.id });
    expect(p.data).toMatchObject({ state: 'ready', rasterId: `ovr-${striped.id}`, reused: false });
    expect(events.some((e) => e.event === 'library:overview-progress' && e.payload.id === striped.id && e.payload.fraction === 1)).toBe(true);
    const r = await serveLibraryFile(app.rasters, `swath-raster://${p.data.rasterId}`, { range: 'bytes=0-1' });
    expect(r.status).toBe(206);
    await r.body?.cancel();
    expect((await call('library:preview', { id: 'nope' })).error.kind).toBe('not-found');
    expect((await call('library:reveal', { id: striped.id })).data.revealed).toBe(false);
  });

  it('removes an entry keeping its file; an imported file is not deleted without main\'s confirmation', async () => {
    const list = (await call('library:query', { limit: 500 })).data.entries;
    const keep = list.find((e: any) => e.path.endsWith('wgs84-ndvi-index.tif'));
    const del = list.find((e: any) => e.path.endsWith('utm56s-sydney.tif'));
    expect((await call('library:remove', { id: keep.id, deleteFile: false })).ok).toBe(true);
    expect(existsSync(keep.path)).toBe(true);
    // An imported file is not deleted on the renderer's word where main has no dialog (browser host).
    expect(await call('library:remove', { id: del.id, deleteFile: true })).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(existsSync(del.path)).toBe(true);
    expect((await call('library:remove', { id: del.id, deleteFile: false })).ok).toBe(true);
    expect(existsSync(del.path)).toBe(true);
    expect((await call('library:query', { limit: 500 })).data.entries.map((e: any) => e.id)).not.toContain(del.id);
    expect((await call('library:remove', { id: del.id, deleteFile: false })).error.kind).toBe('not-found');
  });

  it('persists across a restart, and the overview copy is reused', async () => {
    const before = (await call('library:query', { limit: 500 })).data.entries;
    await app.close();
    await start();
    const after = (await call('library:query', { limit: 500 })).data.entries;
    expect(after.map((e: any) => e.id).sort()).toEqual(before.map((e: any) => e.id).sort());
    expect(after.find((e: any) => e.path.endsWith('lambert93-2154.tif')).epsg).toBe(2154);
    const striped = after.find((e: any) => e.path.endsWith('utm33n-striped.tif'));
    expect((await call('library:preview', { id: striped.id })).data).toMatchObject({ state: 'ready', reused: true, buildMs: 0 });
  });
});
