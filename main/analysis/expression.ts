/**
 * What a time series or change layer computes per pixel: one band, or a normalized difference
 * [A_B] = (A - B) / (A + B) (NDVI = [B8_B4]), written in the Bandnames grammar (common/bandnames.ts),
 * and how it is read from one file: which samples, and the scale and offset that turn their numbers
 * into physical values (reflectance, or the index itself).
 */
import { parseBandnames } from '../../common/bandnames.js';
import { bandScaling } from '../../common/band-scaling.js';
import { metadataBySample, type GeoTiffHeader } from '../geotiff/index.js';

/** One band, or the normalized difference of two bands. */
export type IndexSpec = { kind: 'band'; band: string; label: string } | { kind: 'index'; a: string; b: string; label: string };

/** Parses one Bandnames item ("B4", "ndvi", "[B11_B8]"); a reason instead when it is not exactly one band or index. */
export function parseIndexExpression(expr: string): IndexSpec | { error: string } {
  const parsed = parseBandnames(expr);
  if (!parsed.ok) return { error: parsed.reason };
  if (parsed.bands.length !== 1) return { error: `"${expr}" names ${parsed.bands.length} bands; a time series or change layer computes one band or one index.` };
  const item = parsed.bands[0]!;
  const m = /^\[(\w+)_(\w+)\]$/.exec(item);
  if (m) return { kind: 'index', a: m[1]!, b: m[2]!, label: item === '[B8_B4]' ? 'NDVI [B8_B4]' : item };
  return { kind: 'band', band: item, label: item };
}

/** The unit of a spec's values, for charts and CSV. */
export function unitOf(spec: IndexSpec): string {
  return spec.kind === 'band' ? 'reflectance' : 'index (unitless, -1..1)';
}

/** One sample to read and how its numbers become values: value = DN * scale + offset. */
export interface SampleRead {
  sample: number;
  scale: number;
  offset: number;
}

/** How one file yields the spec: a single sample (a band, or an index band the service computed), or A and B of a normalized difference. */
export type ReadPlan = { mode: 'value'; reads: [SampleRead] } | { mode: 'nd'; reads: [SampleRead, SampleRead] };

/** Band names of a header: per-band DESCRIPTION (what the library records), else "Band n". */
export function bandNamesOf(h: GeoTiffHeader): string[] {
  const byBand = metadataBySample(h.metadata);
  return Array.from({ length: h.bands }, (_, i) => byBand.band(i).DESCRIPTION?.trim() || `Band ${i + 1}`);
}

/** Scale and offset of sample i, by the rule the map's display uses too (common/band-scaling.ts). */
function scaleOf(h: GeoTiffHeader, i: number, name: string): SampleRead {
  const meta = metadataBySample(h.metadata).band(i);
  return { sample: i, ...bandScaling(name, h.dataType ?? '', { scale: meta.SCALE, offset: meta.OFFSET }) };
}

/** How `spec` is read from a file with this header, or why it cannot be (a band is missing). */
export function readPlanFor(spec: IndexSpec, h: GeoTiffHeader): ReadPlan | { error: string } {
  const names = bandNamesOf(h);
  const find = (n: string) => names.findIndex((x) => x.toUpperCase() === n.toUpperCase());
  if (spec.kind === 'band') {
    const i = find(spec.band);
    return i < 0 ? { error: `has no band ${spec.band} (bands: ${names.join(', ')})` } : { mode: 'value', reads: [scaleOf(h, i, spec.band)] };
  }
  // The index as a band of its own (the service computed it), else from its two bands.
  const own = find(`[${spec.a}_${spec.b}]`);
  if (own >= 0) return { mode: 'value', reads: [scaleOf(h, own, names[own]!)] };
  const a = find(spec.a);
  const b = find(spec.b);
  if (a < 0 || b < 0) {
    return { error: `has neither band [${spec.a}_${spec.b}] nor both ${spec.a} and ${spec.b} (bands: ${names.join(', ')})` };
  }
  return { mode: 'nd', reads: [scaleOf(h, a, spec.a), scaleOf(h, b, spec.b)] };
}
