/**
 * Reading an order estimate whose fields the contract leaves "not shown":
 * every list of dates (candidate dates, by whatever name) for the calendar,
 * every money amount for the confirmation dialog, and the area. Found by value
 * and by name hints (recognise.ts), never by a fixed field list.
 */

import { humanize } from './format';
import { KM2_KEY, currencyOf, isDate, isDateTime, isMoneyKey, isObject } from './recognise';

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
  if (!isObject(data)) return null;
  const entries = Object.entries(data).filter(([k, v]) => typeof v === 'number' && KM2_KEY.test(k)) as [string, number][];
  // The billed area rather than the raw one when both are given.
  const best = entries.find(([k]) => !/before|raw|minimum/i.test(k)) ?? entries[0];
  return best ? { key: best[0], value: best[1] } : null;
}
