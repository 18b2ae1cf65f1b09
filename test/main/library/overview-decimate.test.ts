import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOverviewCopy, overviewNeed } from '../../../main/library/overview';
import { fixturePath, gdalRecord } from '../../fixtures/rasters';
import {
  average2xExpected, decimateExpected, difference, HAS_GDAL, readFile, readLevel, TEST_DESCRIPTIONS, TEST_GEO, writeTestTiff,
  type DecodedFile, type TestTiffSpec,
} from './decimate-helpers';

// Quick looks (buildOverviewCopy with `decimate`): every output pixel is the source pixel the
// documented nearest formula names, on both reader paths (raw strips straight from disk, and
// geotiff.js for compressed / tiled / band-interleaved files; big-endian raw strips are swapped), with the source's
// georeferencing at f times the pixel size; and the same pixels GDAL's `-outsize -r nearest` picks.

const signal = new AbortController().signal;
const STRIPED = fixturePath('utm33n-striped');

describe('decimated overview copy', () => {
  let dir: string;
  let n = 0;
  const out = (label: string) => path.join(dir, `${label}-${n++}.tif`);
  const sources = new Map<string, Promise<DecodedFile>>();
  /** The source decoded once per file. */
  const source = (file: string) => {
    if (!sources.has(file)) sources.set(file, readFile(file));
    return sources.get(file)!;
  };
  const gdal = (args: string[]) => {
    const r = spawnSync('gdal_translate', ['-q', ...args], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  };

  /** Decimates `file` by `f` and checks level 0 against the formula and the georeferencing against the source. */
  async function checkDecimated(file: string, f: number, opts: { durable?: boolean } = {}): Promise<{ path: string; copy: DecodedFile }> {
    const src = await source(file);
    const dest = out(`dec${f}`);
    const res = await buildOverviewCopy(file, dest, { signal, decimate: f, ...opts });
    const copy = await readFile(dest);
    const W = Math.ceil(src.width / f);
    const H = Math.ceil(src.height / f);
    expect(res.levels[0], `f=${f}`).toEqual({ width: W, height: H });
    expect(copy.levels, `f=${f}`).toEqual(res.levels);
    expect(difference(copy, decimateExpected(src, f)), `${path.basename(file)} f=${f}`).toBeNull();
    expect(copy.tiled).toBe(true);
    expect(copy.tileWidth).toBe(res.tile);
    expect(copy.origin, `f=${f}`).toEqual(src.origin);
    expect(copy.resolution[0]).toBeCloseTo(src.resolution[0]! * f, 9);
    expect(copy.resolution[1]).toBeCloseTo(src.resolution[1]! * f, 9);
    expect(copy.epsg).toBe(src.epsg);
    expect(copy.nodata).toBe(src.nodata);
    expect(copy.descriptions).toEqual(src.descriptions);
    return { path: dest, copy };
  }

  /** Every overview level is the 2x average of the level above (as in the full copy). */
  async function checkOverviews(file: string, nodata: number): Promise<void> {
    const { levels } = await readFile(file);
    let above = await readLevel(file, 0);
    for (let k = 1; k < levels.length; k++) {
      const level = await readLevel(file, k);
      expect(difference(level, average2xExpected(above, nodata)), `level ${k}`).toBeNull();
      above = level;
    }
  }

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-dec-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the GDAL striped fixture (raw strips read from disk): every pixel, size, origin, pixel size x f, EPSG, nodata, band names', async () => {
    const need = await overviewNeed(STRIPED, signal);
    expect(need.source).toMatchObject({ tiled: false, bands: 5, dataType: 'INT16' });
    for (const f of [2, 3, 4, 5, 7, 16]) await checkDecimated(STRIPED, f);
    const rec = gdalRecord('utm33n-striped');
    const { copy } = await checkDecimated(STRIPED, 3);
    expect([copy.width, copy.height]).toEqual([Math.ceil(rec.size[0] / 3), Math.ceil(rec.size[1] / 3)]);
    expect(copy.origin.slice(0, 2)).toEqual([rec.geoTransform[0], rec.geoTransform[3]]);
    expect(copy.resolution.slice(0, 2)).toEqual([rec.geoTransform[1]! * 3, rec.geoTransform[5]! * 3]);
    expect(copy.epsg).toBe(rec.epsg);
    expect(copy.nodata).toBe(rec.noDataValue);
  });

  it('decimate 1 is the full copy, and durable: false writes the same bytes without leaving a .part', async () => {
    const full = out('full');
    await buildOverviewCopy(STRIPED, full, { signal });
    const one = out('one');
    await buildOverviewCopy(STRIPED, one, { signal, decimate: 1 });
    expect(readFileSync(one).equals(readFileSync(full))).toBe(true);
    const durable = await checkDecimated(STRIPED, 4);
    const fast = await checkDecimated(STRIPED, 4, { durable: false });
    expect(readFileSync(fast.path).equals(readFileSync(durable.path))).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  // Sizes that are not multiples of the factors, a single strip, and an output of two tile rows
  // and columns (f = 2: 301 x 267 px) with an overview level.
  const odd: TestTiffSpec[] = [
    { width: 601, height: 533, bands: 4, dataType: 'INT16', nodata: -32768 },
    { width: 601, height: 533, bands: 2, dataType: 'UINT16', nodata: 0 },
    { width: 533, height: 601, bands: 3, dataType: 'UINT8', nodata: 0 },
    { width: 97, height: 1, bands: 1, dataType: 'UINT16', nodata: 0 },
  ];
  for (const spec of odd) {
    it(`a ${spec.width} x ${spec.height} ${spec.dataType} x${spec.bands} single-strip file: every pixel at f = 2, 3, 4, 7, and its overviews`, async () => {
      const file = out(`strip-${spec.dataType}`);
      writeTestTiff(file, spec);
      const src = await source(file);
      expect(src.descriptions).toEqual(TEST_DESCRIPTIONS.slice(0, spec.bands));
      expect(src.nodata).toBe(spec.nodata);
      for (const f of [2, 3, 4, 7]) {
        const { path: dest, copy } = await checkDecimated(file, f);
        expect(copy.origin.slice(0, 2)).toEqual([TEST_GEO.originX, TEST_GEO.originY]);
        expect(copy.resolution.slice(0, 2)).toEqual([TEST_GEO.pixelSize * f, -TEST_GEO.pixelSize * f]);
        await checkOverviews(dest, spec.nodata);
      }
      if (spec.width === 601 && spec.height === 533) {
        const { copy } = await checkDecimated(file, 2);
        expect(copy.levels).toEqual([{ width: 301, height: 267 }, { width: 151, height: 134 }]);
      }
    });
  }

  it('a tiled file without overviews (geotiff.js path, 128 and 256 px tiles) gives what the same pixels in strips give', async () => {
    const spec: TestTiffSpec = { width: 601, height: 533, bands: 4, dataType: 'INT16', nodata: -32768 };
    const strip = out('same-strip');
    writeTestTiff(strip, spec);
    // The strips' quick looks, once per factor: both tile sizes are compared with them.
    const fromStrips = new Map<number, Buffer>();
    for (const f of [2, 3, 5]) fromStrips.set(f, readFileSync((await checkDecimated(strip, f)).path));
    for (const tile of [128, 256]) {
      const tiled = out(`tiled${tile}`);
      writeTestTiff(tiled, { ...spec, tile });
      expect(difference(await source(tiled), await source(strip))).toBeNull();
      for (const f of [2, 3, 5]) {
        const a = await checkDecimated(tiled, f);
        expect(readFileSync(a.path).equals(fromStrips.get(f)!), `tile ${tile} f=${f}`).toBe(true);
      }
    }
  });

  it('an abort in the middle of a quick look rejects and leaves no file', async () => {
    const file = out('abort-src');
    writeTestTiff(file, { width: 601, height: 533, bands: 2, dataType: 'UINT16', nodata: 0 });
    const ac = new AbortController();
    const dest = path.join(dir, 'aborted-quick.tif');
    const seen: number[] = [];
    const build = buildOverviewCopy(file, dest, {
      signal: ac.signal, decimate: 2, durable: false,
      onProgress: (p) => {
        seen.push(p);
        if (p < 1) ac.abort();
      },
    });
    await expect(build).rejects.toThrow();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]).toBeLessThan(1);
    expect(readdirSync(dir).filter((f) => f.startsWith('aborted-quick'))).toEqual([]);
  });

  describe.skipIf(!HAS_GDAL)('with GDAL', () => {
    const fastPath = new Map<number, Promise<string>>();
    /** The fast-path quick look of the uncompressed fixture, once per factor. */
    const reference = (f: number) => {
      if (!fastPath.has(f)) fastPath.set(f, checkDecimated(STRIPED, f).then((r) => r.path));
      return fastPath.get(f)!;
    };

    const variants: [string, string[]][] = [
      ['DEFLATE strips', ['-co', 'TILED=NO', '-co', 'COMPRESS=DEFLATE']],
      ['DEFLATE + PREDICTOR=2 strips', ['-co', 'TILED=NO', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=2']],
      ['band-interleaved (PLANAR) strips', ['-co', 'TILED=NO', '-co', 'INTERLEAVE=BAND']],
      ['band-interleaved DEFLATE strips', ['-co', 'TILED=NO', '-co', 'INTERLEAVE=BAND', '-co', 'COMPRESS=DEFLATE']],
      ['128 px tiles without overviews', ['-co', 'TILED=YES', '-co', 'BLOCKXSIZE=128', '-co', 'BLOCKYSIZE=128']],
    ];
    for (const [label, co] of variants) {
      it(`${label} (geotiff.js path) decimate to what the raw-strip path makes of the uncompressed fixture`, async () => {
        const file = out(label.replace(/\W+/g, '-'));
        gdal([...co, STRIPED, file]);
        for (const f of [3, 4]) {
          const { path: dest } = await checkDecimated(file, f);
          const ref = await reference(f);
          expect(readFileSync(dest).equals(readFileSync(ref)), `${label} f=${f}`).toBe(true);
        }
      });
    }

    // geotiff.js 3 reads the strip tables of big-endian files with the wrong byte order
    // (geotiffjs/geotiff.js#535) and would decode these strips as zeros: the copy reads them itself.
    it('big-endian raw strips (read from their own strip table, samples swapped) decimate to what the uncompressed fixture gives', async () => {
      const file = out('big-endian');
      gdal(['-co', 'TILED=NO', '-co', 'ENDIANNESS=BIG', STRIPED, file]);
      const dest = out('big-endian-dec');
      await buildOverviewCopy(file, dest, { signal, decimate: 4 });
      const ref = await readLevel(await reference(4));
      expect(difference(await readLevel(dest), ref)).toBeNull();
    });

    it('a big-endian file with compressed strips is refused with what to do, before anything is built', async () => {
      const file = out('big-endian-deflate');
      gdal(['-co', 'TILED=NO', '-co', 'ENDIANNESS=BIG', '-co', 'COMPRESS=DEFLATE', STRIPED, file]);
      await expect(overviewNeed(file, signal)).rejects.toThrow(/big-endian striped GeoTIFF .* gdal_translate -co ENDIANNESS=LITTLE/);
      // An uncompressed one needs a copy whatever its size: the map never reads its strips.
      const small = out('big-endian-small');
      gdal(['-srcwin', '0', '0', '100', '80', '-co', 'TILED=NO', '-co', 'ENDIANNESS=BIG', STRIPED, small]);
      expect(await overviewNeed(small, signal)).toMatchObject({ needed: true, supported: true, reason: expect.stringMatching(/big-endian/) });
      // One that cannot be copied either (Float32) has no preview at all: refused with the advice.
      const float = out('big-endian-float');
      gdal(['-ot', 'Float32', '-co', 'TILED=NO', '-co', 'ENDIANNESS=BIG', STRIPED, float]);
      await expect(overviewNeed(float, signal)).rejects.toThrow(/big-endian striped GeoTIFF that Swath can neither read nor copy .* gdal_translate -co ENDIANNESS=LITTLE/);
    });

    it('odd-sized GDAL files: multi-strip raw path and DEFLATE path agree with the formula and each other', async () => {
      const raw = out('odd-raw');
      gdal(['-srcwin', '0', '0', '397', '389', '-co', 'TILED=NO', STRIPED, raw]);
      const packed = out('odd-deflate');
      gdal(['-srcwin', '0', '0', '397', '389', '-co', 'TILED=NO', '-co', 'COMPRESS=DEFLATE', STRIPED, packed]);
      expect((await overviewNeed(raw, signal)).source).toMatchObject({ width: 397, height: 389, tiled: false });
      for (const f of [2, 3, 4, 6]) {
        const a = await checkDecimated(raw, f);
        const b = await checkDecimated(packed, f);
        expect(readFileSync(a.path).equals(readFileSync(b.path)), `f=${f}`).toBe(true);
      }
    });

    it('gdalinfo reads the quick look: size, geotransform at f x the pixel size, EPSG, nodata, band names, metadata', async () => {
      const rec = gdalRecord('utm33n-striped');
      for (const f of [3, 4]) {
        const { path: dest } = await checkDecimated(STRIPED, f);
        const r = spawnSync('gdalinfo', ['-json', dest], { encoding: 'utf8' });
        expect(r.status, r.stderr).toBe(0);
        const info = JSON.parse(r.stdout);
        expect(info.size).toEqual([Math.ceil(rec.size[0] / f), Math.ceil(rec.size[1] / f)]);
        const gt = rec.geoTransform;
        expect(info.geoTransform).toEqual([gt[0], gt[1]! * f, 0, gt[3], 0, gt[5]! * f]);
        expect(info.coordinateSystem.wkt).toMatch(/ID\["EPSG",32633\]\]$/);
        expect(info.bands.map((b: any) => b.noDataValue)).toEqual(rec.bands.map((b) => b.noDataValue));
        expect(info.bands.map((b: any) => b.description)).toEqual(rec.bands.map((b) => b.description));
        expect(info.bands.map((b: any) => b.type)).toEqual(rec.bands.map((b) => b.type));
        expect(info.metadata[''].IMAGE_DATE).toBe(rec.metadata.IMAGE_DATE);
        expect(info.bands[0].block).toEqual([256, 256]);
      }
    });

    /** gdal_translate -outsize -r nearest, decoded, with its geotransform. */
    const gdalNearest = async (file: string, w: number, h: number) => {
      const dest = out('gdal-nearest');
      gdal(['-outsize', String(w), String(h), '-r', 'nearest', '-co', 'TILED=NO', file, dest]);
      const info = JSON.parse(spawnSync('gdalinfo', ['-json', dest], { encoding: 'utf8' }).stdout);
      return { decoded: await readLevel(dest), geoTransform: info.geoTransform as number[] };
    };
    const ourGeoTransform = (file: string) => JSON.parse(spawnSync('gdalinfo', ['-json', file], { encoding: 'utf8' }).stdout).geoTransform as number[];

    it('picks the pixels gdal_translate -outsize -r nearest picks when the size is a multiple of f (striped fixture, f = 2, 4, 5, 8, 10)', async () => {
      for (const f of [2, 4, 5, 8, 10]) {
        const { path: dest, copy } = await checkDecimated(STRIPED, f);
        const g = await gdalNearest(STRIPED, 400 / f, 400 / f);
        expect(difference(copy, g.decoded), `f=${f}`).toBeNull();
        expect(ourGeoTransform(dest), `f=${f}`).toEqual(g.geoTransform);
      }
    });

    it('picks the pixels gdal_translate -outsize -r nearest picks on a 600 x 450 single-strip file (f = 3, 5, 6, 15)', async () => {
      const file = out('gdal-600x450');
      writeTestTiff(file, { width: 600, height: 450, bands: 3, dataType: 'UINT16', nodata: 0 });
      for (const f of [3, 5, 6, 15]) {
        const { path: dest, copy } = await checkDecimated(file, f);
        const g = await gdalNearest(file, 600 / f, 450 / f);
        expect(difference(copy, g.decoded), `f=${f}`).toBeNull();
        expect(ourGeoTransform(dest), `f=${f}`).toEqual(g.geoTransform);
      }
    });
  });
});
