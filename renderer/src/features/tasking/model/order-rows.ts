import type { JsonObject } from '../../../lib/recognise';
import { summarizeOrder, type OrderSummary } from './tasking-records';

/** One row of the orders list: the record as the service sent it, and what the list shows of it. */
export interface OrderRow {
  row: JsonObject;
  summary: OrderSummary;
  /** A stable key: the order's GUID, or its position when it has none. */
  key: string;
}

/** The record's text, by which a refreshed row is compared with the one listed before. */
const textOf = new WeakMap<OrderRow, string>();

/**
 * The orders list after a refresh, merged by key with the rows listed before: an order whose
 * record is unchanged keeps its row object (the same `row`, `summary`, `key`), so the views and
 * the map redraw nothing for it; a changed order gets a new row; orders no longer listed leave.
 * When nothing changed at all, `prev` itself is returned. Rows are replaced, never mutated (the
 * store holds them in a shallow ref).
 */
export function mergeOrderRows(prev: readonly OrderRow[], records: readonly JsonObject[]): OrderRow[] {
  const before = new Map<string, OrderRow[]>();
  for (const r of prev) {
    const text = textOf.get(r);
    if (text === undefined) continue;
    const same = before.get(text);
    if (same) same.push(r);
    else before.set(text, [r]);
  }
  let unchanged = prev.length === records.length;
  const out = records.map((record, i) => {
    const text = JSON.stringify(record);
    const candidates = before.get(text);
    // A row without a GUID is keyed by its position: reused only at the same position.
    const at = candidates?.findIndex((r) => r.summary.id !== null || r.key === `#${i}`) ?? -1;
    if (candidates && at >= 0) {
      const [kept] = candidates.splice(at, 1);
      if (kept !== prev[i]) unchanged = false;
      return kept!;
    }
    unchanged = false;
    const summary = summarizeOrder(record);
    const row: OrderRow = { row: record, summary, key: summary.id ?? `#${i}` };
    textOf.set(row, text);
    return row;
  });
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
