/** The ten reflectance bands the simulated service can deliver, in "all" order. */
export const ALL_BANDS = ['B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'B8', 'B8A', 'B11', 'B12'] as const;

/** A reflectance band name as accepted in Bandnames. */
export type BandName = (typeof ALL_BANDS)[number];

/** One output band: a plain reflectance band or a normalised difference index (A - B) / (A + B). */
export type BandSpec =
  | { kind: 'band'; name: BandName }
  | { kind: 'index'; a: BandName; b: BandName; name: string };

const BY_UPPER = new Map<string, BandName>(ALL_BANDS.map((b) => [b, b]));

function band(name: BandName): BandSpec {
  return { kind: 'band', name };
}

function index(a: BandName, b: BandName): BandSpec {
  return { kind: 'index', a, b, name: `[${a}_${b}]` };
}

/**
 * Parses the contract's Bandnames grammar ("rgb" | "all" | comma list of bands and [A_B] indices, "ndvi" = [B8_B4]).
 * Leniencies (the contract is silent): case-insensitive, whitespace around items and inside brackets is ignored,
 * duplicates are kept (the output has one band per listed item) and [A_A] is accepted (it is simply 0).
 */
export function parseBandnames(expr: string): { ok: true; bands: BandSpec[] } | { ok: false; reason: string } {
  if (typeof expr !== 'string' || expr.trim() === '') return { ok: false, reason: 'Bandnames is empty' };
  const items = expr.split(',').map((s) => s.trim());
  const lower = items.map((s) => s.toLowerCase());
  for (const exclusive of ['rgb', 'all']) {
    if (lower.includes(exclusive) && items.length > 1) {
      return { ok: false, reason: `"${exclusive}" cannot be combined with other bands` };
    }
  }
  if (lower[0] === 'rgb') return { ok: true, bands: [band('B4'), band('B3'), band('B2')] };
  if (lower[0] === 'all') return { ok: true, bands: ALL_BANDS.map(band) };

  const bands: BandSpec[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item === '') return { ok: false, reason: `empty band name at position ${i + 1}` };
    if (lower[i] === 'ndvi') {
      bands.push(index('B8', 'B4'));
      continue;
    }
    if (item.startsWith('[') || item.endsWith(']')) {
      const m = /^\[\s*([^_\s\]]*)\s*_\s*([^_\s\]]*)\s*\]$/.exec(item);
      if (!m) return { ok: false, reason: `malformed index "${item}", expected [BandA_BandB]` };
      const a = BY_UPPER.get(m[1]!.toUpperCase());
      const b = BY_UPPER.get(m[2]!.toUpperCase());
      if (!m[1] || !m[2]) return { ok: false, reason: `malformed index "${item}", expected [BandA_BandB]` };
      if (!a) return { ok: false, reason: `unknown band "${m[1]}" in index "${item}"` };
      if (!b) return { ok: false, reason: `unknown band "${m[2]}" in index "${item}"` };
      bands.push(index(a, b));
      continue;
    }
    const b = BY_UPPER.get(item.toUpperCase());
    if (!b) return { ok: false, reason: `unknown band "${item}"` };
    bands.push(band(b));
  }
  return { ok: true, bands };
}
