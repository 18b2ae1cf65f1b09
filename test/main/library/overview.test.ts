import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromFile } from 'geotiff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryCatalog, serveLibraryFile } from '../../../main/library';
import { buildOverviewCopy, overviewNeed } from '../../../main/library/overview';
import { mean2x2 as downsample2x } from '../../../main/geotiff/index.js';
import { pyramidLevels } from '../../../main/geotiff/index.js';
import { OVERVIEW_PREFIX, OverviewCache } from '../../../main/library/overview-cache';
import { fixturePath, gdalRecord } from '../../fixtures/rasters';

const HAS_GDAL = spawnSync('gdalinfo', ['--version']).status === 0;
const signal = new AbortController().signal;

async function pixelValues(file: string, x: number, y: number, level = 0): Promise<number[]> {
  const tiff = await fromFile(file);
  try {
    const image = await tiff.getImage(level);
    const data = (await image.readRasters({ window: [x, y, x + 1, y + 1], interleave: true })) as unknown as ArrayLike<number>;
    return Array.from(data);
  } finally {
    await tiff.close();
  }
}

describe('overview need', () => {
  it('previews COGs and small files directly, and copies striped files', async () => {
    expect((await overviewNeed(fixturePath('utm33n-cog'), signal)).needed).toBe(false);
    expect((await overviewNeed(fixturePath('mercator-rgb-uint8'), signal)).needed).toBe(false);
    const striped = await overviewNeed(fixturePath('utm33n-striped'), signal);
    expect(striped).toMatchObject({ needed: true, supported: true });
    expect(striped.reason).toMatch(/striped/);
    // What GDAL read from the same file.
    const rec = gdalRecord('utm33n-striped');
    expect([striped.source.width, striped.source.height]).toEqual(rec.size);
    expect(striped.source.epsg).toBe(rec.epsg);
    expect(striped.source.nodata).toBe(rec.noDataValue);
    expect([striped.source.originX, striped.source.pixelSize, striped.source.originY]).toEqual([rec.geoTransform[0], rec.geoTransform[1], rec.geoTransform[3]]);
  });

  it('levels halve until one fits a tile', () => {
    expect(pyramidLevels(4096, 4096, 512)).toEqual([{ width: 4096, height: 4096 }, { width: 2048, height: 2048 }, { width: 1024, height: 1024 }, { width: 512, height: 512 }]);
    expect(pyramidLevels(400, 300, 256)).toEqual([{ width: 400, height: 300 }, { width: 200, height: 150 }]);
    expect(pyramidLevels(200, 100, 256)).toEqual([{ width: 200, height: 100 }]);
  });

  it('averages 2x2 blocks ignoring nodata, and odd edges', () => {
    const nd = -32768;
    // 3x3, one band: the right column and bottom row are partial blocks.
    const src = new Int16Array([1, 3, 10, 5, nd, 20, 7, 9, nd]);
    const out = new Int16Array(4);
    expect(downsample2x(src, 3, 3, 1, nd, out, 2)).toBe(2);
    expect(Array.from(out)).toEqual([3, 15, 8, nd]);
  });
});

describe('overview copy', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-ovr-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every full-resolution pixel GDAL reads from the striped source', async () => {
    const out = path.join(dir, 'copy.tif');
    const progress: number[] = [];
    const copy = await buildOverviewCopy(fixturePath('utm33n-striped'), out, { signal, onProgress: (f) => progress.push(f) });
    expect(copy.levels).toEqual([{ width: 400, height: 400 }, { width: 200, height: 200 }]);
    expect(progress.at(-1)).toBe(1);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    const rec = gdalRecord('utm33n-striped');
    for (const p of rec.pixels) expect(await pixelValues(out, p.x, p.y), `pixel ${p.x},${p.y}`).toEqual(p.values);
    const tiff = await fromFile(out);
    const img = await tiff.getImage(0);
    expect(img.isTiled).toBe(true);
    expect(await tiff.getImageCount()).toBe(2);
    expect(img.getGDALNoData()).toBe(-32768);
    expect((await img.getGDALMetadata(4))?.DESCRIPTION).toBe('[B8_B4]');
    expect(img.getGeoKeys()?.ProjectedCSTypeGeoKey).toBe(32633);
    await tiff.close();
  });

  it('computes overviews like GDAL\'s AVERAGE resampling (the COG fixture) to within 1 DN', async () => {
    const out = path.join(dir, 'copy2.tif');
    await buildOverviewCopy(fixturePath('utm33n-striped'), out, { signal });
    const read = async (file: string) => {
      const tiff = await fromFile(file);
      const img = await tiff.getImage(1);
      const data = (await img.readRasters({ interleave: true })) as unknown as Int16Array;
      await tiff.close();
      return data;
    };
    const ours = await read(out);
    const gdal = await read(fixturePath('utm33n-cog'));
    expect(ours.length).toBe(gdal.length);
    let worst = 0;
    let nodataMismatch = 0;
    for (let i = 0; i < ours.length; i++) {
      if ((ours[i] === -32768) !== (gdal[i] === -32768)) nodataMismatch++;
      else if (ours[i] !== -32768) worst = Math.max(worst, Math.abs(ours[i]! - gdal[i]!));
    }
    expect(nodataMismatch).toBe(0);
    expect(worst).toBeLessThanOrEqual(1);
  });

  it.skipIf(!HAS_GDAL)('GDAL reads the copy as a tiled GeoTIFF with overviews and the same values', () => {
    const out = path.join(dir, 'copy.tif');
    const info = JSON.parse(spawnSync('gdalinfo', ['-json', out], { encoding: 'utf8' }).stdout);
    expect(info.bands[0].block).toEqual([256, 256]);
    expect(info.bands[0].overviews.map((o: any) => o.size)).toEqual([[200, 200]]);
    expect(info.bands[4].description).toBe('[B8_B4]');
    expect(info.geoTransform).toEqual(gdalRecord('utm33n-striped').geoTransform);
    const v = spawnSync('gdallocationinfo', ['-valonly', out, '333', '87'], { encoding: 'utf8' }).stdout.trim().split(/\s+/).map(Number);
    expect(v).toEqual(gdalRecord('utm33n-striped').pixels.find((p) => p.x === 333)!.values);
  });

  it('refuses an abort and leaves no partial file', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(buildOverviewCopy(fixturePath('utm33n-striped'), path.join(dir, 'aborted.tif'), { signal: ac.signal })).rejects.toThrow();
    expect(readdirSync(dir).filter((f) => f.startsWith('aborted'))).toEqual([]);
  });
});

describe('overview cache', () => {
  let dir: string;
  let catalog: LibraryCatalog;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-ovrc-'));
    catalog = await LibraryCatalog.open({ dir });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds once with progress, reuses the copy after a restart, serves it, and drops it with the entry', async () => {
    const file = path.join(dir, 'striped.tif');
    copyFileSync(fixturePath('utm33n-striped'), file);
    const entry = await catalog.importFile(file, signal);
    const progress: number[] = [];
    const cache = new OverviewCache({ dir: path.join(dir, 'overviews'), catalog, onProgress: (p) => progress.push(p.fraction) });
    const [a, b] = await Promise.all([cache.prepare(entry.id, signal), cache.prepare(entry.id, signal)]);
    expect(a).toMatchObject({ state: 'ready', rasterId: OVERVIEW_PREFIX + entry.id, reused: false });
    expect(b.rasterId).toBe(a.rasterId);
    expect(progress.at(-1)).toBe(1);
    const copies = readdirSync(path.join(dir, 'overviews'));
    expect(copies).toHaveLength(1);
    const copyFile = path.join(dir, 'overviews', copies[0]!);

    // A new cache (an app restart) finds the copy and reuses it.
    const again = new OverviewCache({ dir: path.join(dir, 'overviews'), catalog });
    const reused = await again.prepare(entry.id, signal);
    expect(reused).toMatchObject({ state: 'ready', reused: true, buildMs: 0 });
    const lookup = again.rasterLookup();
    expect(lookup.get(entry.id)?.path).toBe(file);
    expect(lookup.get(OVERVIEW_PREFIX + entry.id)?.path).toBe(copyFile);
    expect(lookup.get(OVERVIEW_PREFIX + 'nope')).toBeUndefined();
    const res = await serveLibraryFile(lookup, `swath-raster://${OVERVIEW_PREFIX}${entry.id}`, { range: 'bytes=0-3' });
    expect(res.status).toBe(206);
    await res.body?.cancel();

    await catalog.remove(entry.id, { deleteFile: false }, signal);
    await expect.poll(() => existsSync(copyFile)).toBe(false);
  });

  it('says when a file is previewed directly', async () => {
    const file = path.join(dir, 'cog.tif');
    copyFileSync(fixturePath('utm33n-cog'), file);
    const entry = await catalog.importFile(file, signal);
    const cache = new OverviewCache({ dir: path.join(dir, 'overviews'), catalog });
    expect(await cache.prepare(entry.id, signal)).toMatchObject({ state: 'not-needed', rasterId: entry.id });
    await expect(cache.prepare('missing', signal)).rejects.toMatchObject({ kind: 'not-found' });
  });
});
