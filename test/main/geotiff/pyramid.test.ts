import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fromFile } from 'geotiff';
import { afterAll, describe, expect, it } from 'vitest';
import { cogLevels, gdalMetadataXml, parseGdalMetadata, writePyramid, type PyramidImage, type PixelSource } from '../../../main/geotiff/index.js';
import { mosaicBlocker, mosaicParts } from '../../../main/downloads/batch/mosaic.js';
import { readPartRaster } from '../../../main/downloads/batch/raster-info.js';
import { deflateThreads } from '../../../main/geotiff/deflate-threads.js';
import { WriteScratch } from '../../../main/geotiff/samples.js';
import { cogReport, gdalSamples } from './cog-validator.js';
import { HAS_GDAL, firstDifference, gdalPixel, gdalinfo, pixels, removeTempDirs, tempDir } from '../downloads/batch/helpers.js';

afterAll(removeTempDirs);

/** A deterministic value per global pixel and band, with nodata where x + y is a multiple of 97. */
function value(x: number, y: number, b: number, nodata: number): number {
  if ((x + y) % 97 === 0) return nodata;
  return ((x * 31 + y * 17 + b * 1000) % 20000) + 1;
}

function image(width: number, height: number, bands: number, originX = 500000, originY = 5800000, over: Partial<PyramidImage> = {}): PyramidImage {
  const items = Array.from({ length: bands }, (_, i) => ({ name: 'DESCRIPTION', value: `band-${i}`, sample: i, role: 'description' }));
  return {
    width,
    height,
    bands,
    dataType: 'INT16',
    geo: { epsg: 32633, geographic: false, originX, originY, pixelSize: 10 },
    metadataXml: gdalMetadataXml([{ name: 'IMAGE_DATE', value: '20260101', sample: null, role: null }, ...items]),
    ...over,
  };
}

/** A source of the global pattern, offset by (gx, gy) global pixels, recording the rectangles asked for. */
function pattern(bands: number, gx = 0, gy = 0, nodata = -32768, asked: { width: number; height: number }[] = []): PixelSource {
  return async (rect, out, _signal, rowStride) => {
    asked.push({ width: rect.width, height: rect.height });
    for (let y = 0; y < rect.height; y++) {
      for (let x = 0; x < rect.width; x++) {
        for (let b = 0; b < bands; b++) out[y * rowStride + x * bands + b] = value(gx + rect.x + x, gy + rect.y + y, b, nodata);
      }
    }
  };
}

/** Index of the first sample of `data` (pixel-interleaved, `width` pixels a row) that is not the pattern's, or -1. */
function firstPatternDifference(data: ArrayLike<number>, width: number, bands: number, nodata = -32768): number {
  for (let i = 0; i < data.length; i++) {
    const px = Math.floor(i / bands);
    if (data[i] !== value(px % width, Math.floor(px / width), i % bands, nodata)) return i;
  }
  return -1;
}

describe('writePyramid', () => {
  it('writes a tiled COG with overviews that GDAL reads like the service files', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.tif');
    const asked: { width: number; height: number }[] = [];
    // A small chunk forces several chunks per tile row and several overview passes.
    const res = await writePyramid(file, image(1300, 1100, 3), pattern(3, 0, 0, -32768, asked), { signal: AbortSignal.timeout(30_000), chunkBytes: 2 * 512 * 512 * 6 });
    expect(res.levels.length - 1).toBe(2);
    expect(cogLevels(1300, 1100)).toEqual([{ width: 1300, height: 1100 }, { width: 650, height: 550 }, { width: 325, height: 275 }]);
    expect(Math.max(...asked.map((a) => a.width))).toBeLessThanOrEqual(1024);
    expect(readdirSync(dir)).toEqual(['a.tif']);

    const data = await pixels(file);
    expect(firstPatternDifference(data, 1300, 3)).toBe(-1);

    // Overview pixels are the mean of the valid pixels of their 2x2 block.
    const tiff = await fromFile(file);
    const ov = await tiff.getImage(1);
    const ovData = (await ov.readRasters({ window: [600, 500, 650, 550], interleave: true })) as unknown as ArrayLike<number>;
    for (const [x, y] of [[600, 500], [649, 549], [623, 511]] as const) {
      for (let b = 0; b < 3; b++) {
        const vals = [0, 1].flatMap((dy) => [0, 1].map((dx) => value(2 * x + dx, 2 * y + dy, b, -32768))).filter((v) => v !== -32768);
        const want = vals.length ? Math.round(vals.reduce((s, v) => s + v, 0) / vals.length) : -32768;
        expect(ovData[((y - 500) * 50 + (x - 600)) * 3 + b]).toBe(want);
      }
    }
    await tiff.close();

    if (HAS_GDAL) {
      const info = gdalinfo(file);
      expect(info.size).toEqual([1300, 1100]);
      expect(info.geoTransform).toEqual([500000, 10, 0, 5800000, 0, -10]);
      expect(info.metadata['']?.IMAGE_DATE).toBe('20260101');
      expect(info.bands.map((b) => [b.description, b.block, b.type, b.noDataValue])).toEqual(
        [0, 1, 2].map((i) => [`band-${i}`, [512, 512], 'Int16', -32768]),
      );
      expect(info.bands[0]!.overviews?.map((o) => o.size)).toEqual([[650, 550], [325, 275]]);
      expect(gdalPixel(file, 1299, 1099)).toEqual([0, 1, 2].map((b) => value(1299, 1099, b, -32768)));
    }
  });

  it('builds the same file in memory as from the file, whatever the chunk size', async () => {
    const dir = await tempDir();
    // 128 px tiles: three overviews and partial tiles at the right and bottom edges, at a sixteenth of the pixels
    // the same layout needs with 512 px tiles (2100 x 1700).
    const img = image(530, 430, 2, 500000, 5800000, { tile: 128 });
    const files: Buffer[] = [];
    for (const [name, opts] of [['memory', {}], ['file', { overviewMemoryBytes: 0 }], ['small-chunks', { chunkBytes: 1 }], ['file-small-chunks', { chunkBytes: 1, overviewMemoryBytes: 0 }]] as const) {
      const file = path.join(dir, `${name}.tif`);
      const res = await writePyramid(file, img, pattern(2), { signal: AbortSignal.timeout(30_000), durable: false, ...opts });
      expect(res.levels.length - 1).toBe(3);
      files.push(readFileSync(file));
    }
    for (const f of files.slice(1)) expect(firstDifference(f, files[0]!)).toBe(-1);
    // The smallest overview is the mean of the one above it (read independently with geotiff.js).
    const tiff = await fromFile(path.join(dir, 'memory.tif'));
    const [above, last] = await Promise.all([tiff.getImage(2), tiff.getImage(3)]);
    const a = (await above.readRasters({ interleave: true })) as unknown as ArrayLike<number>;
    const l = (await last.readRasters({ interleave: true })) as unknown as ArrayLike<number>;
    const aw = above.getWidth();
    const ah = above.getHeight();
    for (let y = 0; y < last.getHeight(); y++) {
      for (let x = 0; x < last.getWidth(); x++) {
        for (let b = 0; b < 2; b++) {
          const vals = [0, 1].flatMap((dy) => [0, 1].map((dx) => [2 * x + dx, 2 * y + dy]))
            .filter(([px, py]) => px! < aw && py! < ah).map(([px, py]) => a[(py! * aw + px!) * 2 + b]!).filter((v) => v !== -32768);
          const want = vals.length ? Math.round(vals.reduce((s, v) => s + v, 0) / vals.length) : -32768;
          expect(l[(y * last.getWidth() + x) * 2 + b], `${x},${y},${b}`).toBe(want);
        }
      }
    }
    await tiff.close();
  });

  it('writes a small UINT8 image as a single strip without overviews', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'u.tif');
    const src: PixelSource = async (rect, out) => {
      for (let i = 0; i < rect.width * rect.height * 2; i++) out[i] = (i % 250) + 1;
    };
    const res = await writePyramid(file, image(300, 200, 2, 13, 52, { dataType: 'UINT8', geo: { epsg: 4326, geographic: true, originX: 13, originY: 52, pixelSize: 0.001 } }), src, { signal: AbortSignal.timeout(10_000) });
    expect(res.levels.length - 1).toBe(0);
    const r = await readPartRaster(file, AbortSignal.timeout(5000));
    expect(r).toMatchObject({ width: 300, height: 200, bands: 2, dataType: 'UINT8', nodata: 0, epsg: 4326, geographic: true, originX: 13, originY: 52 });
  });

  it('writes FLOAT32 samples (SampleFormat 3) with fractional values and float means in the overviews', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'f.tif');
    const nodata = -9999;
    const f = (x: number, y: number) => ((x + y) % 97 === 0 ? nodata : Math.fround(Math.sin(x / 37) * Math.cos(y / 23) * 0.75));
    const src: PixelSource = async (rect, out) => {
      for (let y = 0; y < rect.height; y++) for (let x = 0; x < rect.width; x++) out[y * rect.width + x] = f(rect.x + x, rect.y + y);
    };
    const res = await writePyramid(file, image(700, 600, 1, 500000, 5800000, { dataType: 'FLOAT32', nodata }), src, { signal: AbortSignal.timeout(30_000) });
    expect(res.levels).toEqual([{ width: 700, height: 600 }, { width: 350, height: 300 }]);
    const tiff = await fromFile(file);
    const full = await tiff.getImage(0);
    expect(full.getSampleFormat()).toBe(3);
    expect(full.getBitsPerSample()).toBe(32);
    const data = (await full.readRasters({ interleave: true })) as unknown as Float32Array;
    let bad = -1;
    for (let i = 0; i < data.length && bad < 0; i++) if (data[i] !== f(i % 700, Math.floor(i / 700))) bad = i;
    expect(bad).toBe(-1);
    // The overview keeps the float mean of the valid 2x2 pixels (no rounding to an integer).
    const ov = (await (await tiff.getImage(1)).readRasters({ window: [100, 100, 101, 101], interleave: true })) as unknown as Float32Array;
    const vals = [f(200, 200), f(201, 200), f(200, 201), f(201, 201)].filter((v) => v !== nodata);
    expect(ov[0]).toBeCloseTo(vals.reduce((s, v) => s + v, 0) / vals.length, 6);
    expect(Number.isInteger(ov[0])).toBe(false);
    await tiff.close();
    if (HAS_GDAL) {
      const info = gdalinfo(file);
      expect(info.bands.map((b) => [b.type, b.noDataValue])).toEqual([['Float32', nodata]]);
      expect(info.geoTransform).toEqual([500000, 10, 0, 5800000, 0, -10]);
      expect(gdalPixel(file, 3, 5)[0]).toBeCloseTo(f(3, 5), 6);
    }
  });

  it('compresses each block as it is produced: compressed blocks are on disk while the source is still asked, and no uncompressed copy is made', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'z.tif');
    const seen: { files: string[]; bytes: number }[] = [];
    const src = pattern(2);
    // What is on disk each time a chunk (one tile: chunkBytes 1) is asked for.
    const watch: PixelSource = async (rect, out, signal, rowStride) => {
      const files = readdirSync(dir);
      seen.push({ files, bytes: files.reduce((n, f) => n + statSync(path.join(dir, f)).size, 0) });
      await src(rect, out, signal, rowStride);
    };
    // 4 x 4 tiles at full resolution and two overviews, their means built in memory.
    const res = await writePyramid(file, image(1800, 1800, 2), watch, {
      signal: AbortSignal.timeout(30_000), chunkBytes: 1, durable: false,
    });
    expect(res.levels).toHaveLength(3);
    expect(seen.length).toBeGreaterThanOrEqual(16);
    expect(seen.flatMap((s) => s.files).filter((f) => f.endsWith('.raw.part'))).toEqual([]);
    // By the last tile asked for, most blocks before it are compressed and written.
    expect(seen.at(-1)!.bytes).toBeGreaterThan(seen[0]!.bytes);
    expect(seen.at(-1)!.bytes).toBeLessThan(res.bytes);
    expect(readdirSync(dir)).toEqual(['z.tif']);
    // And the file holds the source's pixels.
    expect(firstPatternDifference(await pixels(file), 1800, 2)).toBe(-1);
  });

  it('compresses on the DEFLATE threads: files written at once share them and each is byte for byte the file written alone', async () => {
    const dir = await tempDir();
    const specs = [
      { name: 'a', img: image(1500, 1100, 3), src: () => pattern(3) },
      { name: 'b', img: image(900, 1300, 2, 500000, 5800000, { dataType: 'UINT8', nodata: 0 }), src: () => pattern(2, 0, 0, 0) },
      { name: 'c', img: image(1200, 700, 1, 390000, 5826000, { dataType: 'FLOAT32', nodata: -9999 }), src: () => pattern(1, 0, 0, -9999) },
    ];
    const opts = { signal: AbortSignal.timeout(60_000), chunkBytes: 1, durable: false };
    const alone: Buffer[] = [];
    for (const s of specs) {
      await writePyramid(path.join(dir, `${s.name}-alone.tif`), s.img, s.src(), opts);
      alone.push(readFileSync(path.join(dir, `${s.name}-alone.tif`)));
    }
    expect(deflateThreads().threadCount).toBeGreaterThan(0);
    await Promise.all(specs.map((s) => writePyramid(path.join(dir, `${s.name}-together.tif`), s.img, s.src(), opts)));
    specs.forEach((s, i) => expect(readFileSync(path.join(dir, `${s.name}-together.tif`)).equals(alone[i]!), s.name).toBe(true));
    expect(firstPatternDifference(await pixels(path.join(dir, 'a-together.tif')), 1500, 3)).toBe(-1);
  });

  it('removes the .part and leaves no file when aborted', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'x.tif');
    const ctl = new AbortController();
    let calls = 0;
    const src = pattern(2);
    const slow: PixelSource = async (rect, out, signal) => {
      if (++calls === 3) ctl.abort();
      await src(rect, out, signal, rect.width * 2);
    };
    await expect(writePyramid(file, image(2000, 2000, 2), slow, { signal: ctl.signal, chunkBytes: 1 })).rejects.toMatchObject({ name: 'AbortError' });
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });
});

describe('GDAL metadata', () => {
  it('round-trips items with samples, roles and characters TIFF ASCII cannot hold', () => {
    const items = [
      { name: 'IMAGE_DATE', value: '20260101', sample: null, role: null },
      { name: 'DESCRIPTION', value: '[B8_B4] <ndvi> & "co" é', sample: 3, role: 'description' },
    ];
    const xml = gdalMetadataXml(items);
    expect([...xml].every((c) => c === '\n' || (c >= ' ' && c <= '~'))).toBe(true);
    expect(parseGdalMetadata(xml)).toEqual(items);
  });
});

describe('mosaicParts', () => {
  async function part(dir: string, name: string, gx: number, gy: number, w: number, h: number, bands: number, over: Partial<PyramidImage> = {}) {
    const file = path.join(dir, name);
    await writePyramid(file, image(w, h, bands, 500000 + gx * 10, 5800000 - gy * 10, over), pattern(bands, gx, gy), { signal: AbortSignal.timeout(10_000) });
    return readPartRaster(file, AbortSignal.timeout(5000));
  }

  it('places parts by their georeferencing, fills gaps with nodata and lets the first valid pixel win on overlaps', async () => {
    const dir = await tempDir();
    const a = await part(dir, 'a.tif', 0, 0, 700, 300, 2);
    const b = await part(dir, 'b.tif', 650, 250, 400, 500, 2); // overlaps a, leaves a gap at the bottom left
    const out = path.join(dir, 'm.tif');
    const res = await mosaicParts([{ raster: a, bandIndices: null }, { raster: b, bandIndices: null }], out, { signal: AbortSignal.timeout(30_000), chunkBytes: 1 });
    expect(res).toMatchObject({ width: 1050, height: 750, bands: 2, originX: 500000, originY: 5800000, epsg: 32633, overviews: 2 });
    const data = await pixels(out);
    const at = (x: number, y: number, band: number): number => data[(y * 1050 + x) * 2 + band]!;
    expect(at(10, 10, 1)).toBe(value(10, 10, 1, -32768));
    expect(at(660, 260, 0)).toBe(value(660, 260, 0, -32768));
    expect(at(1000, 700, 1)).toBe(value(1000, 700, 1, -32768));
    expect(at(100, 600, 0)).toBe(-32768);
    // In the overlap both parts agree (same global pattern); where one has nodata the other fills it.
    const expected = (x: number, y: number, band: number): number => value(x, y, band, -32768);
    let bad = 0;
    for (let y = 250; y < 300; y++) for (let x = 650; x < 700; x++) if (at(x, y, 0) !== expected(x, y, 0)) bad++;
    expect(bad).toBe(0);
    const meta = (await readPartRaster(out, AbortSignal.timeout(5000))).metadata;
    expect(meta.find((m) => m.name === 'IMAGE_DATE')?.value).toBe('20260101');
    expect(meta.filter((m) => m.name === 'DESCRIPTION').map((m) => m.value)).toEqual(['band-0', 'band-1']);
  });

  it('interleaves band groups into the requested order', async () => {
    const dir = await tempDir();
    const g0 = await part(dir, 'g0.tif', 0, 0, 300, 200, 2);
    const g1 = await part(dir, 'g1.tif', 0, 0, 300, 200, 1);
    const res = await mosaicParts([{ raster: g0, bandIndices: [2, 0] }, { raster: g1, bandIndices: [1] }], path.join(dir, 'm.tif'), { signal: AbortSignal.timeout(10_000) });
    expect(res.bands).toBe(3);
    const [m, a, b] = await Promise.all([pixels(res.path), pixels(g0.file), pixels(g1.file)]);
    const want = new Int16Array(300 * 200 * 3);
    for (let i = 0; i < 300 * 200; i++) {
      want[i * 3 + 2] = a[i * 2]!;
      want[i * 3 + 0] = a[i * 2 + 1]!;
      want[i * 3 + 1] = b[i]!;
    }
    expect(firstDifference(m, want)).toBe(-1);
    const info = await readPartRaster(res.path, AbortSignal.timeout(5000));
    expect(info.metadata.filter((x) => x.name === 'DESCRIPTION').sort((x, y) => x.sample! - y.sample!).map((x) => x.value)).toEqual(['band-1', 'band-0', 'band-0']);
  });

  it('says why parts cannot be mosaicked', async () => {
    const dir = await tempDir();
    const a = await part(dir, 'a.tif', 0, 0, 100, 100, 1);
    const geo = await part(dir, 'g.tif', 0, 0, 100, 100, 1, { geo: { epsg: 4326, geographic: true, originX: 13, originY: 52, pixelSize: 0.0001 } });
    const coarse = await part(dir, 'c.tif', 0, 0, 100, 100, 1, { geo: { epsg: 32633, geographic: false, originX: 500000, originY: 5800000, pixelSize: 20 } });
    const shifted = await part(dir, 's.tif', 0, 0, 100, 100, 1, { geo: { epsg: 32633, geographic: false, originX: 500005, originY: 5800000, pixelSize: 10 } });
    const u8 = await part(dir, 'u.tif', 0, 0, 100, 100, 1, { dataType: 'UINT8' });
    const src = (r: typeof a) => ({ raster: r, bandIndices: null });
    expect(mosaicBlocker([src(a), src(a)])).toBeNull();
    expect(mosaicBlocker([src(a), src(geo)])).toMatch(/different CRSs/);
    expect(mosaicBlocker([src(a), src(coarse)])).toMatch(/different pixel sizes/);
    expect(mosaicBlocker([src(a), src(shifted)])).toMatch(/not on the same pixel grid/);
    expect(mosaicBlocker([src(a), src(u8)])).toMatch(/different data types/);
    expect(mosaicBlocker([{ raster: a, bandIndices: [1] }])).toMatch(/no part delivers output band 1/);
    await expect(mosaicParts([src(a), src(geo)], path.join(dir, 'no.tif'), { signal: AbortSignal.timeout(1000) })).rejects.toThrow(/cannot mosaic/);
  });
});

describe.skipIf(!HAS_GDAL)('DEFLATE compression (writePyramid\'s default)', () => {
  // A change-layer-like FLOAT32 field at a real change layer's size (623 x 510, one overview), with nodata.
  const W = 623;
  const H = 510;
  const field = (x: number, y: number): number => ((x * 13 + y * 7) % 211 === 0 ? -9999 : Math.fround(0.35 * Math.sin(x / 41) * Math.cos(y / 29) + 0.02 * Math.sin((x * y) / 97)));
  const floatImage = (compress: boolean): PyramidImage => image(W, H, 1, 390000, 5826000, { dataType: 'FLOAT32', nodata: -9999, compress });
  const floatSource: PixelSource = async (rect, out, _signal, rowStride) => {
    for (let y = 0; y < rect.height; y++) for (let x = 0; x < rect.width; x++) out[y * rowStride + x] = field(rect.x + x, rect.y + y);
  };
  const cases = [
    { name: 'FLOAT32 change layer, predictor 3', type: 'Float32' as const, predictor: '3', write: (f: string, compress: boolean) => writePyramid(f, floatImage(compress), floatSource, { signal: AbortSignal.timeout(60_000) }) },
    { name: 'INT16 3 bands tiled, predictor 2', type: 'Int16' as const, predictor: '2', write: (f: string, compress: boolean) => writePyramid(f, image(1300, 700, 3, 500000, 5800000, { compress }), pattern(3), { signal: AbortSignal.timeout(60_000) }) },
    { name: 'UINT8 2 bands, predictor 2', type: 'Byte' as const, predictor: '2', write: (f: string, compress: boolean) => writePyramid(f, image(700, 600, 2, 500000, 5800000, { compress, dataType: 'UINT8', nodata: 0 }), async (rect, out, _s, rowStride) => {
      for (let y = 0; y < rect.height; y++) for (let x = 0; x < rect.width; x++) for (let b = 0; b < 2; b++) out[y * rowStride + x * 2 + b] = (rect.x + x + 3 * (rect.y + y) + 50 * b) % 256;
    }, { signal: AbortSignal.timeout(60_000) }) },
  ];
  for (const c of cases) {
    it(`${c.name}: GDAL's COG validator passes, GDAL decodes the same samples as the uncompressed file at every level, and the file is smaller`, async () => {
      const dir = await tempDir();
      const raw = path.join(dir, 'raw.tif');
      const zipped = path.join(dir, 'deflate.tif');
      const r = await c.write(raw, false);
      const z = await c.write(zipped, true);
      expect(statSync(raw).size).toBe(r.bytes);
      expect(statSync(zipped).size).toBe(z.bytes);
      expect(readdirSync(dir).sort()).toEqual(['deflate.tif', 'raw.tif']); // no .part or .raw.part left
      const report = cogReport(zipped);
      expect(report.valid, report.output).toBe(true);
      const info = gdalinfo(zipped) as unknown as { metadata: Record<string, Record<string, string>>; bands: { band: number }[] };
      expect(info.metadata.IMAGE_STRUCTURE).toMatchObject({ COMPRESSION: 'DEFLATE', PREDICTOR: c.predictor });
      // Every band of every level (all bands in one gdal_translate run, band after band).
      for (const [k, level] of r.levels.entries()) {
        const ovr = k === 0 ? undefined : k - 1;
        const a = gdalSamples(zipped, c.type, undefined, ovr);
        const b = gdalSamples(raw, c.type, undefined, ovr);
        expect(a.length).toBe(level.width * level.height * info.bands.length);
        const at = firstDifference(a, b);
        expect(at, `overview ${ovr ?? 'none'}, band ${Math.floor(at / (level.width * level.height)) + 1}`).toBe(-1);
      }
      // And the samples are the source's (full resolution, band 1).
      if (c.type === 'Float32') expect(firstDifference(gdalSamples(zipped, 'Float32', 1), Array.from({ length: W * H }, (_, i) => field(i % W, Math.floor(i / W))))).toBe(-1);
      // geotiff.js (the renderer's preview reader) decodes them too.
      const tiff = await fromFile(zipped);
      try {
        const img = await tiff.getImage(0);
        const [got] = (await img.readRasters({ samples: [0], interleave: false })) as unknown as ArrayLike<number>[];
        expect(firstDifference(got!, gdalSamples(raw, c.type, 1))).toBe(-1);
      } finally {
        await tiff.close();
      }
      expect(z.bytes).toBeLessThan(r.bytes / 2);
      console.log(`${c.name}: ${r.bytes} bytes uncompressed, ${z.bytes} bytes DEFLATE`);
      rmSync(dir, { recursive: true, force: true });
    });
  }
});

describe('WriteScratch', () => {
  it.skipIf(typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer !== 'function')('frees every array it made when released (their views read as empty)', () => {
    const scratch = new WriteScratch();
    const a = scratch.samples('INT16', 1000);
    const b = scratch.samples('FLOAT32', 10);
    const view = a.subarray(10, 20);
    a[0] = 7;
    expect([a.length, b.length, view.length, a[0]]).toEqual([1000, 10, 10, 7]);
    scratch.release();
    expect([a.length, b.length, view.length, a.buffer.byteLength]).toEqual([0, 0, 0, 0]);
    scratch.release(); // nothing left to free
  });
});
