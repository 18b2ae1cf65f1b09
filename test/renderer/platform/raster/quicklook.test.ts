import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fromFile } from 'geotiff';
import { transform, transformExtent } from 'ol/proj';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildOverviewCopy } from '../../../../main/library/overview';
import { serveLibraryFile } from '../../../../main/library/raster-protocol';
import { defaultDisplay, displayChannels, type Channel } from '../../../../renderer/src/platform/raster/display';
import { ensureProjection } from '../../../../renderer/src/platform/raster/projection';
import { warpQuickLook } from '../../../../renderer/src/platform/raster/quicklook';
import { RangeSource } from '../../../../renderer/src/platform/raster/range-source';
import { RasterFile, type RasterSample } from '../../../../renderer/src/platform/raster/raster-data';
import { renderSample } from '../../../../renderer/src/platform/raster/render-sample';
import { fixturePath } from '../../../fixtures/rasters';

// The quick look and the block reads under it, over real loopback HTTP (the raster protocol's
// logic): every warped pixel is the source pixel that the exact projection puts under its centre,
// raw tiles arrive in merged requests and equal geotiff.js's decoding, and the CPU colouring's
// lookup tables give the same bytes as the per-pixel path.

describe('quick look and block reads', () => {
  let server: http.Server;
  let base: string;
  const ranges: string[] = [];
  let answerRanges = true;
  /** Files served besides the fixtures, by id. */
  const extra = new Map<string, string>();
  let tmp: string;
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'swath-quicklook-'));
    // Swath's own overview copy of the striped fixture: uncompressed 256 px tiles at even offsets.
    extra.set('striped-copy', path.join(tmp, 'copy.tif'));
    await buildOverviewCopy(fixturePath('utm33n-striped'), extra.get('striped-copy')!, { signal: new AbortController().signal });
    server = http.createServer((req, res) => {
      ranges.push(String(req.headers.range));
      void serveLibraryFile({ get: (id) => ({ path: extra.get(id) ?? fixturePath(id) }) }, `swath-raster://${req.url!.slice(1)}`, { range: answerRanges ? req.headers.range : null }, { method: req.method }).then((a) => {
        res.writeHead(a.status, a.headers);
        if (a.body) Readable.fromWeb(a.body as never).pipe(res);
        else res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(tmp, { recursive: true, force: true });
  });
  beforeEach(() => {
    ranges.length = 0;
    answerRanges = true;
  });

  /** Every pixel of level 0, pixel-interleaved, read by geotiff.js from the file itself. */
  async function reference(name: string): Promise<{ width: number; height: number; bands: number; data: ArrayLike<number> }> {
    const tiff = await fromFile(extra.get(name) ?? fixturePath(name));
    const im = await tiff.getImage(0);
    const data = (await im.readRasters({ interleave: true })) as unknown as ArrayLike<number>;
    const out = { width: im.getWidth(), height: im.getHeight(), bands: im.getSamplesPerPixel(), data };
    await tiff.close();
    return out;
  }

  it('opens a COG with one request: the header, IFDs and tile tables come from its first block', async () => {
    const file = await RasterFile.open(base + 'utm33n-cog');
    expect(ranges).toEqual(['bytes=0-131071']);
    expect(file.levels).toBe(3);
    await file.close();
  });

  for (const [name, tile, across, down] of [['utm33n-raw-cog', 128, 3, 2], ['striped-copy', 256, 2, 2]] as const) {
    it(`${name}: fetches a level's raw tiles in one request, each equal to geotiff.js decoding it`, async () => {
      const file = await RasterFile.open(base + name);
      ranges.length = 0;
      const coords: [number, number][] = [];
      for (let by = 0; by < down; by++) for (let bx = 0; bx < across; bx++) coords.push([bx, by]);
      const blocks = await Promise.all(file.cachedBlocks(0, coords));
      // The writer puts a level's tiles back to back (GDAL: 8 bytes apart, at odd offsets; Swath's copy: adjacent).
      expect(ranges).toHaveLength(1);
      const ref = await reference(name);
      for (let k = 0; k < coords.length; k++) {
        const [bx, by] = coords[k]!;
        const b = blocks[k]!;
        expect(b.stride).toBe(tile);
        let bad = 0;
        for (let r = 0; r < tile && by * tile + r < ref.height; r++) {
          for (let c = 0; c < tile && bx * tile + c < ref.width; c++) {
            for (let s = 0; s < ref.bands; s++) {
              if (b.data[(r * b.stride + c) * ref.bands + s] !== ref.data[((by * tile + r) * ref.width + bx * tile + c) * ref.bands + s]) bad++;
            }
          }
        }
        expect(bad, `tile ${bx},${by}`).toBe(0);
      }
      // Cached: asking again reads nothing.
      ranges.length = 0;
      await Promise.all(file.cachedBlocks(0, coords));
      expect(ranges).toEqual([]);
      await file.close();
    });
  }

  it('a compressed COG is decoded by geotiff.js, block by block, with the same pixels', async () => {
    const file = await RasterFile.open(base + 'utm33n-cog');
    const ref = await reference('utm33n-cog');
    const [b] = await Promise.all(file.cachedBlocks(0, [[3, 3]]));
    // The last tile is cut at the image edge: 400 - 3 * 128 = 16 px wide.
    expect(b!.stride).toBe(16);
    expect(b!.data[0]).toBe(ref.data[(384 * ref.width + 384) * ref.bands]);
    await file.close();
  });

  /**
   * Warps `name` to a view around it and checks every 5th output pixel against the source pixel
   * under its centre (exact transform), allowing the odd pixel where the lattice interpolation and
   * the exact transform fall on either side of a pixel edge (centres exactly on an edge are skipped).
   */
  async function checkWarp(name: string, view: string, pad: number, pixels: number): Promise<{ level: number; width: number }> {
    const file = await RasterFile.open(base + name);
    const src = await ensureProjection(file.header.epsg!);
    const dst = (await ensureProjection(Number(view.split(':')[1]))).code;
    const ext = transformExtent(file.header.bbox!, src.code, dst);
    const res = (ext[2]! - ext[0]!) / pixels;
    const viewExtent = [ext[0]! - pad * res, ext[1]! - pad * res, ext[0]! + (pixels + pad) * res, ext[3]! + pad * res];
    const q = (await warpQuickLook(file, src.code, dst, viewExtent, res))!;
    expect(q).not.toBeNull();
    // On the view's pixel grid.
    const offGrid = (v: number) => Math.abs(v - Math.round(v));
    expect(offGrid((q.extent[0] - viewExtent[0]!) / res)).toBeLessThan(1e-6);
    expect(offGrid((viewExtent[3]! - q.extent[3]) / res)).toBeLessThan(1e-6);
    const ref = await reference(name);
    const [ox, oy] = file.header.origin!;
    const [rx, ry] = file.header.resolution!;
    const level = file.levelSize(q.level);
    const f = ref.width / level[0];
    let n = 0;
    let bad = 0;
    let outside = 0;
    for (let y = 0; y < q.sample.height; y += 5) {
      for (let x = 0; x < q.sample.width; x += 5) {
        const c = transform([q.extent[0] + (x + 0.5) * res, q.extent[3] - (y + 0.5) * res], dst, src.code);
        const fc = (c[0]! - ox) / (rx * f);
        const fr = (c[1]! - oy) / (ry * f);
        const col = Math.floor(fc);
        const row = Math.floor(fr);
        // A centre on a pixel edge (to rounding) may go either way.
        if (Math.abs(fc - Math.round(fc)) < 1e-6 || Math.abs(fr - Math.round(fr)) < 1e-6) continue;
        const got = q.sample.data[0]![y * q.sample.width + x]!;
        if (col < 0 || row < 0 || col >= level[0] || row >= level[1]) {
          if (got === file.header.nodata) outside++;
          continue;
        }
        if (q.level !== 0) continue;
        n++;
        if (got !== ref.data[(row * ref.width + col) * ref.bands]) bad++;
      }
    }
    expect(outside, 'pixels beyond the raster are nodata').toBeGreaterThan(0);
    if (q.level === 0) {
      expect(n).toBeGreaterThan(1000);
      expect(bad / n, `${name} in ${view}`).toBeLessThan(0.005);
    }
    await file.close();
    return { level: q.level, width: q.sample.width };
  }

  it('warps a UTM COG into Web Mercator: each pixel is the source pixel under it, from full resolution when the screen needs it', async () => {
    // 400 px of raster on 700 screen px: full resolution.
    expect(await checkWarp('utm33n-cog', 'EPSG:3857', 40, 700)).toMatchObject({ level: 0 });
    // On 90 px: an overview (400 / 90 > 4: the 100 px level is the finest not finer than the screen).
    const small = await checkWarp('utm33n-cog', 'EPSG:3857', 10, 90);
    expect(small.level).toBe(2);
  });

  it('a first frame may come from a level up to twice as coarse as the screen; the refinement skips the level already shown', async () => {
    const file = await RasterFile.open(base + 'utm33n-cog');
    const src = await ensureProjection(file.header.epsg!);
    const ext = transformExtent(file.header.bbox!, src.code, 'EPSG:3857');
    // 400 px of raster on 300 screen px: full resolution is the screen's level, the 200 px overview is 1.5x coarser.
    const res = (ext[2]! - ext[0]!) / 300;
    const fine = (await warpQuickLook(file, src.code, 'EPSG:3857', ext, res))!;
    const coarse = (await warpQuickLook(file, src.code, 'EPSG:3857', ext, res, { pixelRatio: 2 }))!;
    expect([fine.level, coarse.level]).toEqual([0, 1]);
    // Same screen grid and size, whichever level it was read from.
    expect(coarse.extent).toEqual(fine.extent);
    expect([coarse.sample.width, coarse.sample.height]).toEqual([fine.sample.width, fine.sample.height]);
    expect(await warpQuickLook(file, src.code, 'EPSG:3857', ext, res, { unlessLevel: 0 })).toBeNull();
    expect((await warpQuickLook(file, src.code, 'EPSG:3857', ext, res, { unlessLevel: 1 }))!.level).toBe(0);
    await file.close();
  });

  it('warps a striped file (256 px blocks, narrower at the right edge) and a file already in the view CRS', async () => {
    expect(await checkWarp('utm33n-striped', 'EPSG:3857', 30, 600)).toMatchObject({ level: 0 });
    expect(await checkWarp('utm33n-raw-cog', 'EPSG:3857', 30, 600)).toMatchObject({ level: 0 });
    expect(await checkWarp('utm33n-cog', 'EPSG:32633', 20, 520)).toMatchObject({ level: 0 });
    expect(await checkWarp('utm56s-sydney', 'EPSG:3857', 20, 500)).toMatchObject({ level: 0 });
  });

  it('colours integer bands through lookup tables exactly as per pixel', () => {
    const n = 5000;
    const ints = [new Int16Array(n), new Int16Array(n), new Int16Array(n)];
    for (let i = 0; i < n; i++) for (let b = 0; b < 3; b++) ints[b]![i] = i % 97 === 0 ? -32768 : ((i * (7 + b * 13)) % 4000) - 200;
    const sample: RasterSample = { width: n, height: 1, data: ints };
    const floats: RasterSample = { width: n, height: 1, data: ints.map((a) => Float32Array.from(a)) };
    const bands = ['B4', 'B3', 'B2'].map((name) => ({ name, scaling: { scale: 1e-4, offset: 0 } }));
    const ch = displayChannels(defaultDisplay(bands), bands);
    if (!ch.ok) throw new Error(ch.message);
    const ranges: [number, number][] = [[0.01, 0.2], [0.03, 0.25], [-0.01, 0.3]];
    for (const gamma of [1, 1.7, 0.6]) {
      const viaLut = renderSample(sample, ch.channels, bands, -32768, ranges, gamma, 'grey');
      const perPixel = renderSample(floats, ch.channels, bands, -32768, ranges, gamma, 'grey');
      expect(Buffer.from(viaLut).equals(Buffer.from(perPixel)), `gamma ${gamma}`).toBe(true);
    }
    // Nodata in every channel is transparent; in one channel it is black there and opaque.
    const out = renderSample(sample, ch.channels, bands, -32768, ranges, 1, 'grey');
    expect(Array.from(out.slice(0, 4))).toEqual([0, 0, 0, 0]);
    const oneDead: RasterSample = { width: 1, height: 1, data: [Int16Array.of(-32768), Int16Array.of(1000), Int16Array.of(1000)] };
    expect(Array.from(renderSample(oneDead, ch.channels, bands, -32768, ranges, 1, 'grey'))).toEqual([0, 81, 90, 255]);
    const expr: Channel = { key: 'v', label: 'x', ast: { type: 'band', index: 1 } } as Channel;
    expect(renderSample(sample, [expr], bands, -32768, [ranges[0]!], 1, 'grey')[3]).toBe(0);
  });

  it('range source: answers cached slices without a request, spans blocks, evicts, and refuses servers without ranges', async () => {
    const src = new RangeSource(base + 'utm33n-cog', { blockSize: 1024, cacheBytes: 4096 });
    const [a] = await src.fetch([{ offset: 1000, length: 100 }]);
    expect(ranges).toEqual(['bytes=0-2047']);
    expect(src.fileSize).toBeGreaterThan(100_000);
    const whole = await reference('utm33n-cog');
    expect(whole.width).toBe(400);
    const { readFileSync } = await import('node:fs');
    const bytes = readFileSync(fixturePath('utm33n-cog'));
    expect(Buffer.from(a!).equals(bytes.subarray(1000, 1100))).toBe(true);
    ranges.length = 0;
    const [b] = await src.fetch([{ offset: 1500, length: 400 }]);
    expect(ranges).toEqual([]);
    expect(Buffer.from(b!).equals(bytes.subarray(1500, 1900))).toBe(true);
    // Two separate runs of missing blocks: two requests; older blocks leave the 4 KiB cache.
    const [c, d] = await src.fetch([{ offset: 10_000, length: 10 }, { offset: 20_100, length: 2000 }]);
    expect(ranges.sort()).toEqual(['bytes=19456-22527', 'bytes=9216-10239']);
    expect(Buffer.from(c!).equals(bytes.subarray(10_000, 10_010))).toBe(true);
    expect(Buffer.from(d!).equals(bytes.subarray(20_100, 22_100))).toBe(true);
    ranges.length = 0;
    await src.fetch([{ offset: 1000, length: 10 }]);
    expect(ranges).toEqual(['bytes=0-1023']);
    answerRanges = false;
    await expect(new RangeSource(base + 'utm33n-cog').fetch([{ offset: 0, length: 10 }])).rejects.toThrow(/did not answer a range request \(HTTP 200\)/);
  });

  it('range source: finds the end of the file without Content-Range (hidden by CORS) and keeps shared reads alive when one caller aborts', async () => {
    const { readFileSync } = await import('node:fs');
    const bytes = readFileSync(fixturePath('utm33n-cog'));
    // The real server's answers, minus Content-Range.
    const hiding: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const headers = new Headers(res.headers);
      headers.delete('content-range');
      // Piped at once: the first Response cancels its unlocked body when it is garbage collected.
      return new Response(res.body?.pipeThrough(new TransformStream()), { status: res.status, headers });
    };
    const size = bytes.length;
    const blockSize = 4096;
    const src = new RangeSource(base + 'utm33n-cog', { blockSize, fetch: hiding });
    // A slice running past the end: two blocks asked, the second only partly there.
    const lastBlock = Math.floor((size - 1) / blockSize);
    const [tail] = await src.fetch([{ offset: lastBlock * blockSize - 10, length: blockSize + 100 }]);
    expect(src.fileSize).toBe(size);
    expect(Buffer.from(tail!).equals(bytes.subarray(lastBlock * blockSize - 10))).toBe(true);
    // Wholly past the end (416): empty, not an error.
    const fresh = new RangeSource(base + 'utm33n-cog', { blockSize, fetch: hiding });
    const [none] = await fresh.fetch([{ offset: size + 5000, length: 10 }]);
    expect(none!.byteLength).toBe(0);

    // Two callers of one block: the first aborts, the second still gets the bytes.
    const shared = new RangeSource(base + 'utm33n-cog', { blockSize });
    const ac = new AbortController();
    const first = shared.fetch([{ offset: 100, length: 10 }], ac.signal);
    const second = shared.fetch([{ offset: 110, length: 10 }]);
    ac.abort();
    await expect(first).rejects.toThrow(/Abort/);
    expect(Buffer.from((await second)[0]!).equals(bytes.subarray(110, 120))).toBe(true);
  });
});
