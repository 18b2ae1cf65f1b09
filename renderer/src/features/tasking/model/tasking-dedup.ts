/**
 * TileDeduplication consistency (contract 2.5): deduplication only matches
 * earlier tile or mini-tile orders made with the same Model, constellations,
 * kind of tile selection, From/To behaviour and cadence (ImageFrequency,
 * ReferenceDate). This compares a new tile order with the earlier ones that
 * cover the same ground and names every field that differs, so the analyst is
 * warned that already-ordered data may be ordered (and paid for) again.
 */

import type { OrderSummary } from './tasking-records';

/** The new tile-mode order, as the estimate froze it. */
export interface DedupCandidate {
  model: string;
  constellations: readonly string[];
  mini: boolean;
  guids: readonly string[];
  recurring: boolean;
  imageFrequency: number;
  referenceDate: string;
  /** Bounding box [minLon, minLat, maxLon, maxLat] of the selected tiles, to find earlier orders of the other kind over the same ground. */
  bbox?: readonly [number, number, number, number] | null;
}

/** One field that differs from an earlier order. */
export interface DedupDifference {
  field: 'Model' | 'SatelliteConstellations' | 'Tile selection' | 'From/To behaviour' | 'ImageFrequency' | 'ReferenceDate';
  earlier: string;
  now: string;
}

/** An earlier tile order that covers the same ground with other settings. */
export interface DedupWarning {
  orderId: string | null;
  status: string | null;
  /** Selected GUIDs that order already holds. */
  shared: string[];
  differences: DedupDifference[];
  /** Fields the order record does not carry, so they could not be compared. */
  unknown: string[];
}

/** The result of comparing a candidate with the earlier orders. */
export interface DedupReport {
  /** Earlier tile orders over the same ground. */
  related: number;
  /** Of those, how many match in every compared field (deduplication will skip their tiles). */
  consistent: number;
  warnings: DedupWarning[];
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
const behaviour = (recurring: boolean) => (recurring ? 'recurring (To empty)' : 'historical (From and To)');

function overlaps(a: readonly number[] | null | undefined, b: readonly number[] | null | undefined): boolean {
  if (!a || !b) return false;
  return a[0]! < b[2]! && b[0]! < a[2]! && a[1]! < b[3]! && b[1]! < a[3]!;
}

/**
 * Compares a tile-mode order with earlier orders. An earlier order is related
 * when it holds one of the selected GUIDs, or when it is a tile order of the
 * other kind whose area overlaps the selection (`bboxOf` gives its box).
 * Cancelled or expired orders are left out: deduplication ignores them.
 */
export function dedupReport(
  candidate: DedupCandidate,
  orders: readonly OrderSummary[],
  bboxOf: (order: OrderSummary) => readonly number[] | null = () => null,
): DedupReport {
  const selected = new Set(candidate.guids);
  const report: DedupReport = { related: 0, consistent: 0, warnings: [] };
  for (const o of orders) {
    if (o.ended) continue;
    const held = [...o.tiles, ...o.miniTiles];
    if (held.length === 0) continue;
    const shared = held.filter((g) => selected.has(g));
    const earlierMini = o.miniTiles.length > 0 && o.tiles.length === 0;
    const otherKind = earlierMini !== candidate.mini;
    if (shared.length === 0 && !(otherKind && overlaps(candidate.bbox ?? null, bboxOf(o)))) continue;
    report.related++;
    const differences: DedupDifference[] = [];
    const unknown: string[] = [];
    if (o.model === null) unknown.push('Model');
    else if (o.model !== candidate.model) differences.push({ field: 'Model', earlier: o.model, now: candidate.model });
    if (o.constellations === null) unknown.push('SatelliteConstellations');
    else if (!sameSet(o.constellations, candidate.constellations)) {
      differences.push({ field: 'SatelliteConstellations', earlier: o.constellations.join(', '), now: candidate.constellations.join(', ') });
    }
    if (otherKind) {
      differences.push({
        field: 'Tile selection',
        earlier: earlierMini ? 'mini-tiles' : 'tiles',
        now: candidate.mini ? 'mini-tiles' : 'tiles',
      });
    }
    if (o.recurring === null) unknown.push('From/To behaviour');
    else if (o.recurring !== candidate.recurring) differences.push({ field: 'From/To behaviour', earlier: behaviour(o.recurring), now: behaviour(candidate.recurring) });
    if (o.imageFrequency === null) unknown.push('ImageFrequency');
    else if (o.imageFrequency !== candidate.imageFrequency) differences.push({ field: 'ImageFrequency', earlier: String(o.imageFrequency), now: String(candidate.imageFrequency) });
    if (o.referenceDate === null) unknown.push('ReferenceDate');
    else if (o.referenceDate !== candidate.referenceDate) differences.push({ field: 'ReferenceDate', earlier: o.referenceDate, now: candidate.referenceDate });
    if (differences.length === 0) report.consistent++;
    else report.warnings.push({ orderId: o.id, status: o.status, shared, differences, unknown });
  }
  return report;
}

/** One sentence per warning, naming the differing fields. */
export function describeDedupWarning(w: DedupWarning): string {
  const who = w.orderId ? `order ${w.orderId}` : 'an earlier order';
  const fields = w.differences.map((d) => `${d.field} (${d.earlier} → ${d.now})`).join('; ');
  const held = w.shared.length ? ` It already holds ${w.shared.length} of the selected tile${w.shared.length === 1 ? '' : 's'}.` : '';
  return `Differs from ${who} in ${fields}.${held} Deduplication will not match it, so already-ordered data may be ordered again.`;
}
