/** The Bandnames grammar as batch code needs it; the parser is the client's (preload/contract/bandnames.ts). */
import { parseBandnames, type BandnamesResult } from '../../common/bandnames.js';

/** Output bands of a Bandnames expression, in order (indices written "[A_B]"), or why it is refused. */
export type ExpandedBandnames = BandnamesResult;

/** Expands "rgb", "all", "ndvi" and lists into the ordered output band names the service will write. */
export function expandBandnames(expr: unknown): ExpandedBandnames {
  return parseBandnames(expr);
}

/** A Bandnames expression that yields exactly these bands in this order. */
export function bandnamesFor(bands: readonly string[]): string {
  return bands.join(',');
}
