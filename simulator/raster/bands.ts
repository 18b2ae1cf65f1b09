import { BANDNAMES_BANDS, parseBandnames as parseGrammar } from '../../common/bandnames.js';

/** The ten reflectance bands the simulated service can deliver, in "all" order. */
export const ALL_BANDS = BANDNAMES_BANDS;

/** A reflectance band name as accepted in Bandnames. */
export type BandName = (typeof ALL_BANDS)[number];

/** One output band: a plain reflectance band or a normalised difference index (A - B) / (A + B). */
export type BandSpec =
  | { kind: 'band'; name: BandName }
  | { kind: 'index'; a: BandName; b: BandName; name: string };

function band(name: BandName): BandSpec {
  return { kind: 'band', name };
}

function index(a: BandName, b: BandName): BandSpec {
  return { kind: 'index', a, b, name: `[${a}_${b}]` };
}

/**
 * The output bands of a Bandnames expression (the one grammar in common/bandnames.ts: "rgb" | "all" |
 * comma list of bands and [A_B] indices, "ndvi" = [B8_B4]) as the renderer of the synthetic landscape
 * needs them. Duplicates are kept (one output band per listed item) and [A_A] is accepted (it is simply 0).
 */
export function parseBandnames(expr: string): { ok: true; bands: BandSpec[] } | { ok: false; reason: string } {
  const r = parseGrammar(expr);
  if (!r.ok) return r;
  return {
    ok: true,
    bands: r.bands.map((name) => {
      const m = /^\[(\w+)_(\w+)\]$/.exec(name);
      return m ? index(m[1] as BandName, m[2] as BandName) : band(name as BandName);
    }),
  };
}
