import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** GDAL's own COG validator (gdal-bin's Python bindings, Debian's python3). */
export const COG_VALIDATOR = '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py';

/** What GDAL's validate_cloud_optimized_geotiff.py --full-check=yes says of `file`: valid, and its report. */
export function cogReport(file: string): { valid: boolean; output: string } {
  if (!existsSync(file)) throw new Error(`no file ${file}`);
  const r = spawnSync('/usr/bin/python3', [COG_VALIDATOR, '--full-check=yes', file], { encoding: 'utf8' });
  if (r.error) throw r.error;
  const output = `${r.stdout}${r.stderr}`;
  if (r.status !== 0 && !/is NOT a valid cloud optimized GeoTIFF/.test(output)) throw new Error(`COG validator failed: ${output}`);
  return { valid: r.status === 0 && /is a valid cloud optimized GeoTIFF/.test(output), output };
}

/** Whether GDAL's validator passes `file`. */
export function cogValid(file: string): boolean {
  return cogReport(file).valid;
}

/**
 * Band `band` of `file` (every band, one after the other, when `band` is omitted; of its overview `ovr`, 0-based) as
 * GDAL decodes it: raw samples via gdal_translate -of ENVI.
 */
export function gdalSamples(file: string, type: 'Float32' | 'Int16' | 'Byte', band?: number, ovr?: number): ArrayLike<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-gdal-raw-'));
  try {
    const out = path.join(dir, 'band.bin');
    execFileSync('gdal_translate', ['-q', '-of', 'ENVI', '-co', 'INTERLEAVE=BSQ', ...(band === undefined ? [] : ['-b', String(band)]), ...(ovr === undefined ? [] : ['-ovr', String(ovr)]), file, out]);
    const buf = readFileSync(out);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    return type === 'Float32' ? new Float32Array(ab) : type === 'Int16' ? new Int16Array(ab) : new Uint8Array(ab);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
