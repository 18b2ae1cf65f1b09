import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

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
