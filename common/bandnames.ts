/**
 * The contract's Bandnames grammar (service-contract.md 4.3.1), the one implementation shared by
 * the service client and batch planner in main, the forms in the renderer and the simulator.
 */

/** Reflectance bands a Bandnames list may name, in the order "all" delivers them. */
export const BANDNAMES_BANDS = ['B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'B8', 'B8A', 'B11', 'B12'] as const;

/** One reflectance band of {@link BANDNAMES_BANDS}. */
export type BandnamesBand = (typeof BANDNAMES_BANDS)[number];

/** Result of {@link parseBandnames}: the output bands in order, or why the expression is refused. */
export type BandnamesResult = { ok: true; bands: string[] } | { ok: false; reason: string };

const BY_UPPER = new Map<string, BandnamesBand>(BANDNAMES_BANDS.map((b) => [b, b]));
const EXCLUSIVE = ['rgb', 'all'] as const;
const VALID_LIST = `${BANDNAMES_BANDS.join(', ')}, [A_B] indices or ndvi`;

/**
 * Parses a Bandnames expression: "rgb" or "all" alone, or a comma-separated list of bands and
 * [BandA_BandB] indices, with "ndvi" an alias for [B8_B4]. Returns the output band names in order
 * (indices written as "[A_B]"), or a reason naming the offending item.
 */
export function parseBandnames(expr: unknown): BandnamesResult {
  if (typeof expr !== 'string') return { ok: false, reason: 'Bandnames must be a string.' };
  if (expr.trim() === '') return { ok: false, reason: 'Bandnames is empty; use rgb, all, or a comma-separated list of bands.' };
  const items = expr.split(',').map((s) => s.trim());
  const lower = items.map((s) => s.toLowerCase());
  for (const exclusive of EXCLUSIVE) {
    // "rgb" and "all" are whole selections; mixing them with bands has no defined order.
    if (lower.includes(exclusive) && items.length > 1) {
      return { ok: false, reason: `"${exclusive}" must be used alone, not combined with other bands.` };
    }
  }
  if (lower[0] === 'rgb') return { ok: true, bands: ['B4', 'B3', 'B2'] };
  if (lower[0] === 'all') return { ok: true, bands: [...BANDNAMES_BANDS] };

  const bands: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item === '') return { ok: false, reason: `Empty band name at position ${i + 1}; remove the extra comma.` };
    if (lower[i] === 'ndvi') {
      bands.push('[B8_B4]');
      continue;
    }
    if (item.startsWith('[') || item.endsWith(']')) {
      const m = /^\[\s*([A-Za-z0-9]+)\s*_\s*([A-Za-z0-9]+)\s*\]$/.exec(item);
      if (!m) return { ok: false, reason: `Malformed index "${item}"; write it as [BandA_BandB], e.g. [B8_B4].` };
      const a = BY_UPPER.get(m[1]!.toUpperCase());
      const b = BY_UPPER.get(m[2]!.toUpperCase());
      if (!a) return { ok: false, reason: `Unknown band "${m[1]}" in index "${item}"; use one of ${BANDNAMES_BANDS.join(', ')}.` };
      if (!b) return { ok: false, reason: `Unknown band "${m[2]}" in index "${item}"; use one of ${BANDNAMES_BANDS.join(', ')}.` };
      bands.push(`[${a}_${b}]`);
      continue;
    }
    const band = BY_UPPER.get(item.toUpperCase());
    if (!band) return { ok: false, reason: `Unknown band "${item}" at position ${i + 1}; use rgb, all, or ${VALID_LIST}.` };
    bands.push(band);
  }
  return { ok: true, bands };
}
