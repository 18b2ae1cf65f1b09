/**
 * How a band's numbers become physical values (value = DN * scale + offset), one rule for the
 * map's display (renderer/src/platform/raster) and the analysis in main (main/analysis/expression.ts).
 */

/** DN scale and offset to physical values. */
export interface BandScaling {
  scale: number;
  offset: number;
}

/** A metadata item's number (GDAL writes them as text), or null. */
function numberOf(v: unknown): number | null {
  const n = typeof v === 'string' && v.trim() ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) ? n : null;
}

/**
 * The DN scaling of a band: the file's own SCALE/OFFSET items (numbers or their text) when it has them, else the service's
 * conventions (INT16 reflectance DN/10000, index bands DN/32767; UINT8 reflectance DN*0.4/255,
 * index (DN-128)/127), else identity. Reflectance bands are the ones named B<n> (B8A too), index
 * bands [A_B]; any other band (a class or cloud band) keeps its numbers.
 */
export function bandScaling(name: string, dataType: string, file?: { scale?: unknown; offset?: unknown }): BandScaling {
  const scale = numberOf(file?.scale);
  if (scale !== null && scale !== 0) return { scale, offset: numberOf(file?.offset) ?? 0 };
  const index = /^\[\w+_\w+\]$/.test(name);
  const reflectance = /^B\d+A?$/i.test(name);
  if (dataType === 'INT16') {
    if (index) return { scale: 1 / 32767, offset: 0 };
    if (reflectance) return { scale: 1 / 10000, offset: 0 };
  }
  if (dataType === 'UINT8') {
    if (index) return { scale: 1 / 127, offset: -128 / 127 };
    if (reflectance) return { scale: 0.4 / 255, offset: 0 };
  }
  return { scale: 1, offset: 0 };
}
