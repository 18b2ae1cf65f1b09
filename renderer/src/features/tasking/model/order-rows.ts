import { mapInSlices } from '../../../platform/lib/idle';
import { findGuid, type JsonObject } from '../../../platform/lib/recognise';
import { summarizeOrder, type OrderSummary } from './tasking-records';

/** One row of the orders list: the record as the service sent it, and what the list shows of it. */
export interface OrderRow {
  row: JsonObject;
  summary: OrderSummary;
  /** A stable key: the order's GUID, or its position when it has none. */
  key: string;
}

/**
 * Whether two JSON values are the same (what `JSON.stringify` would print alike, up to key order):
 * walked in place, without building the text of either. A poll of 1,000 orders compares each listed
 * record with the one listed before; serialising both would make megabytes of strings per poll for
 * the collector.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  // Equal primitives are compared inline, without a call each (a record is mostly strings and numbers).
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x: unknown = a[i];
      const y: unknown = b[i];
      if (x !== y && (typeof x !== 'object' || !sameJson(x, y))) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let keys = 0;
  for (const k in ra) {
    keys++;
    const x = ra[k];
    const y = rb[k];
    if (x !== y && (typeof x !== 'object' || !sameJson(x, y))) return false;
    if (y === undefined && !Object.prototype.hasOwnProperty.call(rb, k)) return false;
  }
  for (const k in rb) if (Object.prototype.hasOwnProperty.call(rb, k)) keys--;
  return keys === 0;
}

/**
 * The orders list after a refresh, merged by key with the rows listed before: an order whose
 * record is unchanged keeps its row object (the same `row`, `summary`, `key`), so the views and
 * the map redraw nothing for it; a changed order gets a new row; orders no longer listed leave.
 * When nothing changed at all, `prev` itself is returned. Rows are replaced, never mutated (the
 * store holds them in a shallow ref).
 *
 * Each record is compared with the row at its position first (a poll lists the orders in the same
 * order), then with the row of its GUID; a row without a GUID is keyed by its position and reused
 * only there. Only a changed record is read again ({@link summarizeOrder}), in slices of about
 * `budgetMs` that hand the main thread back to the window between them (a poll in which hundreds of
 * orders changed read each of them again, which in one go was a long task).
 */
export async function mergeOrderRows(prev: readonly OrderRow[], records: readonly JsonObject[], budgetMs = 8): Promise<OrderRow[]> {
  let byId: Map<string, OrderRow> | null = null;
  const used = new Set<OrderRow>();
  let unchanged = prev.length === records.length;
  const out = await mapInSlices(records, (record, i) => {
    const here = prev[i];
    if (here && !used.has(here) && (here.summary.id !== null || here.key === `#${i}`) && sameJson(here.row, record)) {
      used.add(here);
      return here;
    }
    unchanged = false;
    const id = findGuid(record)?.value;
    if (id !== undefined) {
      byId ??= new Map(prev.filter((r) => r.summary.id !== null).map((r) => [r.summary.id!, r]));
      const kept = byId.get(id);
      if (kept && !used.has(kept) && sameJson(kept.row, record)) {
        used.add(kept);
        return kept;
      }
    }
    const summary = summarizeOrder(record);
    return { row: record, summary, key: summary.id ?? `#${i}` };
  }, budgetMs);
  return unchanged ? (prev as OrderRow[]) : out;
}

/** The badge look of an order status. */
export function statusClass(status: string | null): string {
  if (!status) return '';
  if (/cancel|fail|reject|expired/i.test(status)) return 'bad';
  if (/complete|uptodate|done/i.test(status)) return 'ok';
  if (/review/i.test(status)) return 'warn';
  return 'accent';
}
