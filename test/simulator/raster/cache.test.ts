import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RasterCache, rasterCacheKey, writeGeoTiff } from '../../../simulator/raster/index.js';
import type { RasterFile } from '../../../simulator/raster/cache.js';
import { rect, request, tempDir } from './helpers.js';

const calls = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../../simulator/raster/write.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../../simulator/raster/write.js')>();
  return {
    ...mod,
    stageGeoTiff: (...args: Parameters<typeof mod.stageGeoTiff>) => {
      calls.n++;
      return mod.stageGeoTiff(...args);
    },
  };
});

let dir = '';
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const small = (lon: number) => request({ aoi: rect(lon, 50, lon + 0.01, 50.01), epsg: 32633, resolution: 10 });
/**
 * Big enough that generation is still running when we abort: about 1000 x 1100 px of 4 bands plus overviews, so
 * the raw pyramid is written in several 4 MiB chunks and then compressed in five (the abort is checked between
 * chunks), while the tests that let it finish stay cheap.
 */
const big = () => request({ aoi: rect(15, 50, 15.14, 50.1), epsg: 32633, resolution: 10 });

/** .part files in d (synchronous so it can run inside a polling timer). */
function partsIn(d: string): string[] {
  try {
    return readdirSync(d).filter((f) => f.endsWith('.part'));
  } catch {
    return [];
  }
}

/** All of a file's bytes, through a reader that is closed afterwards. */
async function readAll(file: RasterFile): Promise<Buffer> {
  const reader = await file.open();
  try {
    const out = Buffer.alloc(reader.bytes);
    await reader.read(out, 0);
    return out;
  } finally {
    await reader.close();
  }
}

function abortWhenFileAppears(file: string | (() => boolean), ac: AbortController): NodeJS.Timeout {
  const t = setInterval(() => {
    const started = typeof file === 'string' ? existsSync(file) && statSync(file).size > 0 : file();
    if (started) {
      clearInterval(t);
      ac.abort();
    }
  }, 1);
  return t;
}

describe('writeGeoTiff abort', () => {
  it('stops generation and removes the partial file', async () => {
    const out = join(dir, 'aborted.tif');
    const ac = new AbortController();
    // The writer streams into `<out>.part` and publishes it only when complete.
    const t = abortWhenFileAppears(`${out}.part`, ac);
    try {
      await expect(writeGeoTiff(big(), out, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      clearInterval(t);
    }
    expect(ac.signal.aborted).toBe(true);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.part`)).toBe(false);
  });

  it('does not even create the file for an already aborted signal', async () => {
    const out = join(dir, 'pre-aborted.tif');
    await expect(writeGeoTiff(small(15), out, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(existsSync(out)).toBe(false);
  });

  it('rejects an invalid request without leaving a file', async () => {
    const out = join(dir, 'invalid.tif');
    await expect(writeGeoTiff({ ...small(15), epsg: 2154 }, out)).rejects.toThrow(/EPSG/);
    expect(existsSync(out)).toBe(false);
  });
});

describe('RasterCache', () => {
  it('keys on the canonical request, independent of property order', () => {
    const a = small(15);
    const b = { ...a, tags: { CONSTELLATIONS: a.tags.CONSTELLATIONS, IMAGE_VERSION: a.tags.IMAGE_VERSION, MODEL_VERSION: a.tags.MODEL_VERSION, IMAGE_DATE: a.tags.IMAGE_DATE } };
    expect(rasterCacheKey(b)).toBe(rasterCacheKey(a));
    expect(rasterCacheKey(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(rasterCacheKey({ ...a, date: '2024-07-02' })).not.toBe(rasterCacheKey(a));
    expect(rasterCacheKey({ ...a, pixelSelection: 'contained' })).not.toBe(rasterCacheKey(a));
  });

  it('generates once, then serves the cached file', async () => {
    const cdir = join(dir, 'c1');
    const cache = new RasterCache(cdir);
    const req = small(15.1);
    const before = calls.n;
    const first = await cache.get(req);
    expect(first.cached).toBe(false);
    expect(first.path).toBe(join(cdir, `${rasterCacheKey(req)}.tif`));
    expect(statSync(first.path).size).toBe(first.bytes);
    const second = await cache.get(req);
    expect(second).toEqual({ path: first.path, bytes: first.bytes, cached: true });
    expect(calls.n - before).toBe(1);
    // A new cache instance on the same directory finds the file too.
    expect((await new RasterCache(cdir).get(req)).cached).toBe(true);
    expect(calls.n - before).toBe(1);
    expect(await readdir(cdir)).toEqual([`${rasterCacheKey(req)}.tif`]);
  });

  it('evicts the least recently used files beyond its size bound (a hit counts as a use)', async () => {
    const [a, b, c] = [small(15.4), small(15.5), small(15.6)];
    const probe = new RasterCache(join(dir, 'c-lru-probe'));
    const [sa, sb, sc] = [(await probe.get(a)).bytes, (await probe.get(b)).bytes, (await probe.get(c)).bytes];
    const cdir = join(dir, 'c-lru');
    // Room for a with b, or a with c, never all three.
    const cache = new RasterCache(cdir, Math.max(sa + sb, sa + sc));
    const fa = await cache.get(a);
    await cache.get(b);
    expect((await readdir(cdir)).length).toBe(2);
    expect((await cache.get(a)).cached).toBe(true);
    const fc = await cache.get(c);
    expect((await readdir(cdir)).sort()).toEqual([fa.path, fc.path].map((p) => p.slice(cdir.length + 1)).sort());
    expect((await cache.get(b)).cached).toBe(false);
  });

  it('shares one generation between concurrent identical requests', async () => {
    const cdir = join(dir, 'c2');
    const cache = new RasterCache(cdir);
    const req = small(15.2);
    const before = calls.n;
    const results = await Promise.all([cache.get(req), cache.get(req), cache.get(req), cache.get(small(15.3))]);
    expect(calls.n - before).toBe(2);
    expect(new Set(results.slice(0, 3).map((r) => r.path)).size).toBe(1);
    expect(results[3]!.path).not.toBe(results[0]!.path);
    const files = await readdir(cdir);
    expect(files.filter((f) => f.endsWith('.part'))).toEqual([]);
    expect(files.sort()).toEqual([`${rasterCacheKey(req)}.tif`, `${rasterCacheKey(small(15.3))}.tif`].sort());
  });

  it('open answers a fresh file readable before it is in the cache, which takes it once its first reader is done', async () => {
    const cdir = join(dir, 'c-open');
    const cache = new RasterCache(cdir);
    const req = big();
    const before = calls.n;
    const fresh = await cache.open(req);
    expect(fresh.cached).toBe(false);
    const first = await fresh.open();
    const tif = join(cdir, `${rasterCacheKey(req)}.tif`);
    expect(existsSync(tif)).toBe(false);
    // Waiting for the file in the cache waits for its first reader, and then for its copy into place.
    const inCache = cache.get(req);
    const bytes = Buffer.alloc(fresh.bytes);
    await first.read(bytes, 0);
    const waited = await Promise.race([inCache.then(() => 'in the cache'), new Promise((resolve) => setTimeout(resolve, 300, 'waiting'))]);
    expect(waited).toBe('waiting');
    // A reader of the same generation that came later reads on from the temporaries and holds nothing up.
    const later = await (await cache.open(req)).open();
    await first.close();
    const got = await inCache;
    expect(got).toEqual({ path: tif, bytes: fresh.bytes, cached: false });
    expect(readFileSync(tif).equals(bytes)).toBe(true);
    const again = Buffer.alloc(later.bytes);
    await later.read(again, 0);
    expect(again.equals(bytes)).toBe(true);
    await later.close();
    const cached = await cache.open(req);
    expect(cached.cached).toBe(true);
    expect((await readAll(cached)).equals(bytes)).toBe(true);
    expect(calls.n - before).toBe(1);
    await cache.idle();
    expect(readdirSync(cdir)).toEqual([`${rasterCacheKey(req)}.tif`]);
  });

  it('a generation staged when its last waiter leaves is still put in the cache, and a newcomer shares it', async () => {
    const cdir = join(dir, 'c-staged-abort');
    const cache = new RasterCache(cdir);
    const req = big();
    const before = calls.n;
    // A download holds the commit with its reader; the one waiting for the file in the cache gives up.
    const reader = await (await cache.open(req)).open();
    const ac = new AbortController();
    const waiting = cache.get(req, { signal: ac.signal });
    // Joined once its lookup (a sweep already done) has run.
    await new Promise((resolve) => setImmediate(resolve));
    ac.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    const newcomer = await cache.open(req);
    expect(newcomer.cached).toBe(false);
    await reader.close();
    await cache.idle();
    expect(calls.n - before).toBe(1);
    expect(readdirSync(cdir)).toEqual([`${rasterCacheKey(req)}.tif`]);
  });

  it('keeps generating while any waiter remains, and aborts when the last one leaves', async () => {
    const cdir = join(dir, 'c3');
    const cache = new RasterCache(cdir);
    const req = big();
    const hasPart = (): boolean => partsIn(cdir).length > 0;

    // One waiter leaves, the other stays: the file is still produced.
    const acA = new AbortController();
    const a = cache.get(req, { signal: acA.signal });
    const b = cache.get(req);
    const t = abortWhenFileAppears(hasPart, acA);
    try {
      await expect(a).rejects.toMatchObject({ name: 'AbortError' });
      const rb = await b;
      expect(existsSync(rb.path)).toBe(true);
    } finally {
      clearInterval(t);
    }
    expect(acA.signal.aborted).toBe(true);

    // The only waiter leaves: generation stops, nothing is left behind, and a later request still works.
    const req2 = { ...req, date: '2024-07-02' };
    const ac = new AbortController();
    const t2 = abortWhenFileAppears(hasPart, ac);
    try {
      await expect(cache.get(req2, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      clearInterval(t2);
    }
    // The generation notices the abort between chunks; wait for its cleanup without any timing assumption.
    while (partsIn(cdir).length > 0) await new Promise((r) => setTimeout(r, 5));
    expect(existsSync(join(cdir, `${rasterCacheKey(req2)}.tif`))).toBe(false);
    const again = await cache.get(small(15.4));
    expect(again.cached).toBe(false);
  });

  it('a request arriving after all waiters left starts a fresh generation instead of inheriting the abort', async () => {
    const cdir = join(dir, 'c4');
    const cache = new RasterCache(cdir);
    const req = big();
    const ac = new AbortController();
    const first = cache.get(req, { signal: ac.signal });
    const t = abortWhenFileAppears(() => partsIn(cdir).length > 0, ac);
    try {
      await expect(first).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      clearInterval(t);
    }
    // The aborted generation may still be winding down at this point.
    const second = await cache.get(req);
    expect(second.cached).toBe(false);
    expect(statSync(second.path).size).toBe(second.bytes);
    while (partsIn(cdir).length > 0) await new Promise((r) => setTimeout(r, 5));
    expect((await cache.get(req)).cached).toBe(true);
  });
});

describe('RasterCache start-up sweep', () => {
  it('removes stale .part files left by a dead process, keeps fresh ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swath-cache-sweep-'));
    try {
      const stale = join(dir, 'dead.tif.abc.part');
      const fresh = join(dir, 'live.tif.def.part');
      writeFileSync(stale, 'x');
      writeFileSync(fresh, 'y');
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(stale, old, old);
      const cache = new RasterCache(dir);
      await cache.get({
        aoi: { type: 'Polygon', coordinates: [[[13.4, 52.5], [13.401, 52.5], [13.401, 52.501], [13.4, 52.501], [13.4, 52.5]]] },
        date: '2026-06-01', epsg: 32633, resolution: 80, bands: [{ kind: 'band', name: 'B4' }], dataType: 'INT16',
        pixelSelection: 'intersect', tags: { IMAGE_DATE: '20260601', MODEL_VERSION: 'x', IMAGE_VERSION: '1', CONSTELLATIONS: 'Sentinel2' },
      });
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(fresh)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
