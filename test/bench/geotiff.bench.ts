import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gdalMetadataXml, writePyramid, type PixelArray, type PixelSource, type PyramidImage } from '../../main/geotiff/index.js';
import { benchRequest } from '../../simulator/raster/bench-raster.js';
import { writeGeoTiff } from '../../simulator/raster/write.js';
import { interleaved, MIN_PAIRS, ratioFigure, type Figure } from './method.js';

const execFileP = promisify(execFile);

/** Side of the FLOAT32 band (a change layer's kind of samples). */
const FLOAT_SIDE = 6000;

/** The UTM grid both kinds are georeferenced on (zone 33N, 10 m). */
const UTM_ORIGIN = { x: 480_000, y: 5_560_000 };

interface Kind {
  name: string;
  /** Raw ENVI source GDAL translates (samples pixel-interleaved, little-endian). */
  raw: string;
  image: PyramidImage;
  samples: PixelArray;
}

/** A source that copies `samples` (width x bands per row) into each rectangle asked for. */
function memorySource(samples: PixelArray, width: number, bands: number): PixelSource {
  return async (rect, out, _signal, rowStride) => {
    for (let r = 0; r < rect.height; r++) {
      const from = ((rect.y + r) * width + rect.x) * bands;
      out.set(samples.subarray(from, from + rect.width * bands), r * rowStride);
    }
  };
}

/**
 * A change layer's kind of FLOAT32 field: the difference of two NDVIs computed from integer
 * reflectances (full float mantissas, as the analysis writes), smooth at large scale with
 * per-pixel sensor noise, and nodata along a diagonal band (outside an AOI).
 */
function changeField(side: number): Float32Array {
  const out = new Float32Array(side * side);
  const noise = (x: number, y: number, k: number): number => ((((x * 73856093) ^ (y * 19349663) ^ (k * 83492791)) >>> 0) % 97) - 48;
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      if (x + y < side / 8) {
        out[y * side + x] = -9999;
        continue;
      }
      const veg = 0.5 + 0.4 * Math.sin(x / 310) * Math.cos(y / 270);
      const nirA = 2500 + 1500 * veg + noise(x, y, 1);
      const redA = 900 - 500 * veg + noise(x, y, 2);
      const shift = 0.1 * Math.sin((x + y) / 900);
      const nirB = 2500 + 1500 * (veg + shift) + noise(x, y, 3);
      const redB = 900 - 500 * (veg + shift) + noise(x, y, 4);
      const a = Math.fround((Math.round(nirA) - Math.round(redA)) / (Math.round(nirA) + Math.round(redA)));
      const b = Math.fround((Math.round(nirB) - Math.round(redB)) / (Math.round(nirB) + Math.round(redB)));
      out[y * side + x] = b - a;
    }
  }
  return out;
}

function envihdr(width: number, height: number, bands: number, dataType: number): string {
  return [
    'ENVI', `samples = ${width}`, `lines = ${height}`, `bands = ${bands}`, 'header offset = 0', 'file type = ENVI Standard',
    `data type = ${dataType}`, 'interleave = bip', 'byte order = 0',
    `map info = {UTM, 1, 1, ${UTM_ORIGIN.x}, ${UTM_ORIGIN.y}, 10, 10, 33, North, WGS-84}`, '',
  ].join('\n');
}

/** The two kinds: the simulator's 4,000 x 4,000 x 4-band INT16 composite pixels, and a 6,000 x 6,000 FLOAT32 change field. */
async function kinds(dir: string): Promise<Kind[]> {
  const geo = { epsg: 32633, geographic: false, originX: UTM_ORIGIN.x, originY: UTM_ORIGIN.y, pixelSize: 10 };
  const metadataXml = gdalMetadataXml([]);
  // The composite's pixels as the demo service renders them, as raw samples for both writers.
  const sim = path.join(dir, 'composite-uncompressed.tif');
  await writeGeoTiff(benchRequest(), sim, { compress: false });
  const intRaw = path.join(dir, 'composite.bil');
  await execFileP('gdal_translate', ['-q', '-of', 'ENVI', '-co', 'INTERLEAVE=BIP', sim, intRaw]);
  rmSync(sim);
  const intHeader = readFileSync(intRaw.replace(/\.bil$/, '.hdr'), 'utf8');
  const dim = (k: string): number => Number(new RegExp(`${k}\\s*=\\s*(\\d+)`).exec(intHeader)![1]);
  const w = dim('samples');
  const h = dim('lines');
  const nb = dim('bands');
  const intBytes = readFileSync(intRaw);
  const ints = new Int16Array(intBytes.buffer, intBytes.byteOffset, intBytes.length / 2);
  const floats = changeField(FLOAT_SIDE);
  const floatRaw = path.join(dir, 'change.bil');
  writeFileSync(floatRaw, Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength));
  writeFileSync(path.join(dir, 'change.hdr'), envihdr(FLOAT_SIDE, FLOAT_SIDE, 1, 4) + 'data ignore value = -9999\n');
  return [
    { name: `INT16 ${w}x${h}x${nb}`, raw: intRaw, samples: ints, image: { width: w, height: h, bands: nb, dataType: 'INT16', nodata: -32768, geo, metadataXml } },
    { name: `FLOAT32 ${FLOAT_SIDE}x${FLOAT_SIDE}`, raw: floatRaw, samples: floats, image: { width: FLOAT_SIDE, height: FLOAT_SIDE, bands: 1, dataType: 'FLOAT32', nodata: -9999, geo, metadataXml } },
  ];
}

/**
 * `geotiff-write-vs-gdal-ratio`: wall time of Swath's writer (writePyramid, pixels from memory)
 * over `gdal_translate -of COG -co COMPRESS=DEFLATE -co PREDICTOR=YES` from the raw samples, for
 * the same two images (both written in each run), as interleaved pairs. The note gives both
 * writers' file sizes.
 */
export async function benchGeotiff(): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-bench-geotiff-'));
  try {
    const all = await kinds(dir);
    const sizes = new Map<string, { swath: number; gdal: number }>(all.map((k) => [k.name, { swath: 0, gdal: 0 }]));
    const ours = async (i: number): Promise<number> => {
      const t0 = performance.now();
      for (const k of all) {
        const out = path.join(dir, `swath-${i}.tif`);
        const res = await writePyramid(out, k.image, memorySource(k.samples, k.image.width, k.image.bands), { signal: AbortSignal.timeout(600_000), durable: false, fullSources: true });
        sizes.get(k.name)!.swath = res.bytes;
        rmSync(out);
      }
      return performance.now() - t0;
    };
    const reference = async (i: number): Promise<number> => {
      const t0 = performance.now();
      for (const k of all) {
        const out = path.join(dir, `gdal-${i}.tif`);
        await execFileP('gdal_translate', ['-q', '-of', 'COG', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=YES', k.raw, out]);
        sizes.get(k.name)!.gdal = statSync(out).size;
        rmSync(out);
      }
      return performance.now() - t0;
    };
    const pairs = await interleaved(MIN_PAIRS, ours, reference);
    const sizeNote = [...sizes].map(([name, s]) => `${name}: Swath ${(s.swath / 1e6).toFixed(1)} MB, GDAL ${(s.gdal / 1e6).toFixed(1)} MB (${s.swath >= s.gdal ? '+' : ''}${((s.swath / s.gdal - 1) * 100).toFixed(1)} %)`).join('; ');
    return [ratioFigure('geotiff-write-vs-gdal-ratio', pairs, { ours: 'Swath', reference: 'GDAL', unit: 'ms' }, `both images each run, COG with DEFLATE and the predictor; goal <= 1.0; ${sizeNote}`)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
