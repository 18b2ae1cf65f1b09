/**
 * Figures computed with GDAL's command-line tools, independently of Swath's reader: every pixel of a
 * band via gdal_translate to an ASCII grid, scale/offset/nodata via gdalinfo -json, and the pixel at
 * a lon/lat via gdallocationinfo. Statistics over them are computed here with plain arrays.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** gdalinfo -json of a file. */
export function gdalInfo(file: string): {
  coordinateSystem?: { wkt: string };
  stac?: { 'proj:epsg'?: number };
  geoTransform: number[];
  size: [number, number];
  bands: { band: number; type: string; description?: string; noDataValue?: number; scale?: number; offset?: number }[];
  metadata?: Record<string, Record<string, string>>;
} {
  return remembered(`info ${file}`, file, () => JSON.parse(execFileSync('gdalinfo', ['-json', file], { encoding: 'utf8' })));
}

const answers = new Map<string, { version: string; value: unknown }>();

/**
 * GDAL's answer for this file as it is now: asked once per version of the file (its size and mtime), since the
 * tests ask about the same few files many times and each GDAL run is a process. Callers must not change it.
 */
function remembered<T>(key: string, file: string, ask: () => T): T {
  const st = statSync(file);
  const version = `${st.size} ${st.mtimeMs}`;
  const hit = answers.get(key);
  if (hit?.version === version) return hit.value as T;
  const value = ask();
  answers.set(key, { version, value });
  return value;
}

/** One band's numbers (row-major) and nodata, through gdal_translate -of AAIGrid. */
export function gdalBand(file: string, band: number): { width: number; height: number; nodata: number | null; values: number[] } {
  return remembered(`band ${band} ${file}`, file, () => readBand(file, band));
}

function readBand(file: string, band: number): { width: number; height: number; nodata: number | null; values: number[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-gdal-ref-'));
  try {
    const out = path.join(dir, 'band.asc');
    execFileSync('gdal_translate', ['-q', '-of', 'AAIGrid', '-b', String(band), file, out]);
    const lines = readFileSync(out, 'utf8').split(/\r?\n/);
    const head: Record<string, string> = {};
    let i = 0;
    for (; i < lines.length && /^[a-zA-Z_]+\s/.test(lines[i]!); i++) {
      const [k, v] = lines[i]!.trim().split(/\s+/);
      head[k!.toLowerCase()] = v!;
    }
    const values = lines.slice(i).join(' ').trim().split(/\s+/).filter(Boolean).map(Number);
    return { width: Number(head.ncols), height: Number(head.nrows), nodata: head.nodata_value === undefined ? null : Number(head.nodata_value), values };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The physical values of an expression per pixel (NaN: nodata), from GDAL's numbers: a band, or (A - B) / (A + B). */
export function gdalValues(file: string, expr: { band: string } | { a: string; b: string }): number[] {
  const info = gdalInfo(file);
  const index = (name: string) => {
    const b = info.bands.find((x) => x.description === name);
    if (!b) throw new Error(`${file} has no band ${name}`);
    return b;
  };
  const read = (name: string) => {
    const b = index(name);
    const g = gdalBand(file, b.band);
    const nodata = b.noDataValue ?? g.nodata;
    return g.values.map((dn) => (dn === nodata ? NaN : dn * (b.scale ?? 1) + (b.offset ?? 0)));
  };
  if ('band' in expr) return read(expr.band);
  const a = read(expr.a);
  const b = read(expr.b);
  return a.map((va, i) => {
    const vb = b[i]!;
    return Number.isNaN(va) || Number.isNaN(vb) || va + vb === 0 ? NaN : (va - vb) / (va + vb);
  });
}

/** Mean, median, p10, p90 (linear between closest ranks, as NumPy's default) and count of the finite values, with plain arrays. */
export function referenceStats(values: number[]): { count: number; mean: number; median: number; p10: number; p90: number } {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const q = (p: number) => {
    const pos = (v.length - 1) * p;
    const lo = Math.floor(pos);
    const frac = pos - lo;
    return frac === 0 ? v[lo]! : v[lo]! * (1 - frac) + v[lo + 1]! * frac;
  };
  return { count: v.length, mean: v.reduce((s, x) => s + x, 0) / v.length, median: q(0.5), p10: q(0.1), p90: q(0.9) };
}

/** gdallocationinfo: the pixel (column, line) containing lon/lat and the numbers of the given bands there. */
export function gdalLocation(file: string, lon: number, lat: number, bands: number[]): { col: number; row: number; values: number[] } {
  const xml = execFileSync('gdallocationinfo', ['-xml', ...bands.flatMap((b) => ['-b', String(b)]), '-wgs84', file, String(lon), String(lat)], { encoding: 'utf8' });
  const m = /pixel="(\d+)" line="(\d+)"/.exec(xml);
  if (!m) throw new Error(`gdallocationinfo found no pixel: ${xml}`);
  const values = [...xml.matchAll(/<Value>([^<]*)<\/Value>/g)].map((x) => Number(x[1]));
  return { col: Number(m[1]), row: Number(m[2]), values };
}
