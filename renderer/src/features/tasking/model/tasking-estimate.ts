/**
 * Reading an order estimate whose fields the contract leaves "not shown":
 * every list of dates (candidate dates, by whatever name) for the calendar,
 * every money amount for the confirmation dialog, and the area. Found by value
 * and by name hints (recognise.ts), never by a fixed field list.
 */

import { orderAmounts, type OrderAmountKind } from '../../../../../common/money';
import { humanize } from '../../../platform/lib/format';
import { KM2_KEY, currencyOf, isDate, isDateTime, isMoneyKey, isObject } from '../../../platform/lib/recognise';

/** One named list of dates found in a response. */
export interface DateGroup {
  name: string;
  dates: string[];
}

/** Every non-empty array of dates in the data (two levels deep), smallest first; a list equal to the union of the others is put last. */
export function dateGroups(data: unknown): DateGroup[] {
  const out: DateGroup[] = [];
  const walk = (v: unknown, prefix: string, depth: number) => {
    if (!isObject(v) || depth > 2) return;
    for (const [k, x] of Object.entries(v)) {
      const name = prefix ? `${prefix}.${k}` : k;
      if (Array.isArray(x) && x.length > 0 && x.every((d) => isDate(d) || isDateTime(d))) out.push({ name, dates: [...new Set((x as string[]).map((d) => d.slice(0, 10)))].sort() });
      else if (isObject(x)) walk(x, name, depth + 1);
    }
  };
  walk(data, '', 0);
  return out.sort((a, b) => a.dates.length - b.dates.length);
}

/** One money amount of an estimate. */
export interface MoneyLine {
  key: string;
  label: string;
  value: number;
  currency: string | null;
}

/** Money amounts (by name: cost, price, amount, ... with a number) at the top level and one level down. */
export function moneyLines(data: unknown): MoneyLine[] {
  const out: MoneyLine[] = [];
  const top = currencyOf(data);
  const walk = (v: unknown, prefix: string, depth: number, currency: string | null) => {
    if (!isObject(v) || depth > 1) return;
    const cur = currencyOf(v) ?? currency;
    for (const [k, x] of Object.entries(v)) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (typeof x === 'number' && isMoneyKey(k)) out.push({ key, label: humanize(k), value: x, currency: cur });
      else if (isObject(x)) walk(x, key, depth + 1, cur);
    }
  };
  walk(data, '', 0, top);
  return out;
}

/** "1,234.50 EUR", or the bare amount when the response names no currency. */
export function formatAmount(line: Pick<MoneyLine, 'value' | 'currency'>): string {
  const n = line.value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return line.currency ? `${n} ${line.currency}` : n;
}

/** The area in km² an estimate states (a numeric property whose name says km², {@link KM2_KEY}), or null. */
export function areaOfEstimate(data: unknown): { key: string; value: number } | null {
  return estimateAreas(data).billed;
}

/**
 * The areas an order estimate states, by their names' meaning: the billed area (the service bills
 * each polygon of the AOI by its lon/lat bounding box, with a minimum per polygon; or the tiles) and,
 * when given, the same boxes before that minimum (AreaKm2BeforeMinimum1Km2PerAoi, areaSqKmBeforeMinimum).
 */
export function estimateAreas(data: unknown): { billed: { key: string; value: number } | null; beforeMinimum: { key: string; value: number } | null } {
  if (!isObject(data)) return { billed: null, beforeMinimum: null };
  const entries = Object.entries(data).filter(([k, v]) => typeof v === 'number' && KM2_KEY.test(k) && !/per_?(km2|sq_?km)/i.test(k)) as [string, number][];
  const raw = (k: string) => /before|raw|minimum/i.test(k);
  const billed = entries.find(([k]) => !raw(k)) ?? null;
  const before = entries.find(([k]) => raw(k)) ?? null;
  return {
    billed: billed ? { key: billed[0], value: billed[1] } : before ? { key: before[0], value: before[1] } : null,
    beforeMinimum: billed && before ? { key: before[0], value: before[1] } : null,
  };
}

/** One line of an order's cost breakdown. */
export interface CostLine {
  kind: OrderAmountKind;
  label: string;
  value: number;
  currency: string | null;
  /** The estimate's fields that name this amount (several fields often name the same one). */
  fields: string[];
  /** Set when the fields of this kind name different amounts: each field with its amount. */
  disagree: { field: string; value: number }[] | null;
}

/** An order's cost, from its estimate: this order's lines, and the account's month shown apart. */
export interface CostBreakdown {
  /** This order: charged when placed, of which historical images, each later month, storage, other amounts. Zeros left out (except the charge). */
  order: CostLine[];
  /** The account's costs this month so far (not this order), when the estimate names them. */
  account: CostLine | null;
}

const KIND_LABEL: Record<OrderAmountKind, string> = {
  charged: 'Charged when placed (this month)',
  historic: 'of which historical images',
  monthly: 'Then each month until cancelled',
  storage: 'Storage',
  account: 'Costs this month so far',
  other: 'Other',
};

const cents = (n: number) => Math.round(n * 100);

/**
 * One clean cost breakdown of an order estimate. Amounts are recognised by what they are
 * (common/money.ts `orderAmounts`: money by name, each kind by its name's meaning) at any depth;
 * the fields that name the same kind become one line (a disagreement is kept and shown), zeros are
 * left out except the charge itself, the historical part only when it differs from the charge,
 * and the account's month-to-date costs are returned apart: they are not this order's.
 */
export function costBreakdown(estimate: unknown): CostBreakdown {
  const { amounts, currency } = orderAmounts(estimate);
  const byKind = new Map<OrderAmountKind, typeof amounts>();
  for (const a of amounts) byKind.set(a.kind, [...(byKind.get(a.kind) ?? []), a]);
  const line = (kind: OrderAmountKind, list: typeof amounts, label = KIND_LABEL[kind]): CostLine => {
    const values = new Set(list.map((a) => cents(a.value)));
    return {
      kind, label, value: list[0]!.value, currency, fields: list.map((a) => a.name),
      disagree: values.size > 1 ? list.map((a) => ({ field: a.name, value: a.value })) : null,
    };
  };
  const order: CostLine[] = [];
  const charged = byKind.get('charged');
  if (charged) order.push(line('charged', charged));
  const historic = byKind.get('historic');
  if (historic) {
    const h = line('historic', historic);
    const sameAsCharge = charged && !h.disagree && cents(h.value) === cents(order[0]!.value);
    if (h.disagree || (!sameAsCharge && (cents(h.value) !== 0 || !charged))) order.push(charged ? h : { ...h, label: 'Historical images' });
  }
  const monthly = byKind.get('monthly');
  if (monthly) {
    const m = line('monthly', monthly);
    if (m.disagree || cents(m.value) !== 0) order.push(m);
  }
  // Storage and other amounts: one line per distinct name, zeros left out.
  for (const kind of ['storage', 'other'] as const) {
    const seen = new Map<string, typeof amounts>();
    for (const a of byKind.get(kind) ?? []) {
      if (cents(a.value) === 0) continue;
      const leaf = a.name.split('.').pop()!;
      seen.set(leaf, [...(seen.get(leaf) ?? []), a]);
    }
    for (const [leaf, list] of seen) order.push(line(kind, list, humanize(leaf)));
  }
  const account = byKind.get('account');
  return { order, account: account ? line('account', account) : null };
}
