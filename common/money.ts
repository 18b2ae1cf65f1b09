/**
 * What a service answer says something costs, read by what its fields are (the contract does not
 * show an estimate's fields, and the answer styles name them differently): a number whose name says
 * money. A cost that cannot be read is *unknown*, never 0; a negative or ambiguous one is *invalid*.
 * Both need the analyst's confirmation before Swath spends (main/spend).
 */

/** The service's currency: budgets and the ledger are in it. */
export const SERVICE_CURRENCY = 'EUR';

/** A cost as read from an answer. */
export type Cost =
  | { state: 'known'; eur: number }
  /** No amount Swath can read (no money field, another currency, a failed estimate). */
  | { state: 'unknown'; reason: string }
  /** An amount that cannot be right: negative, or several fields that disagree. */
  | { state: 'invalid'; reason: string };

/** Names that say money (CreditEstimate, priceEur, cost, …), and numbers that are not money. */
export const MONEY_NAME = /credit|euro|eur$|price|cost|amount|total|charge|fee/i;
export const NOT_MONEY_NAME = /count|band|km2|sqkm|area|percent|bytes|size|days|months|requests|rate|limit|balance/i;

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const cents = (n: number): number => Math.round(n * 100) / 100;
const squash = (k: string): string => k.replace(/[\s_-]/g, '');

/** The three-letter currency an object names (CurrencyCode, currency), if any. */
export function currencyOf(data: unknown): string | null {
  if (!isRecord(data)) return null;
  const hit = Object.entries(data).find(([k, v]) => /^currency(code)?$/i.test(squash(k)) && typeof v === 'string' && /^[A-Za-z]{3}$/.test(v));
  return hit ? (hit[1] as string).toUpperCase() : null;
}

/** One cost from the candidate fields found: none is unknown, a negative or several different amounts are invalid. */
function oneOf(found: readonly { name: string; value: unknown }[], currency: string | null, none: string): Cost {
  if (currency !== null && currency !== SERVICE_CURRENCY) {
    return { state: 'unknown', reason: `The estimate is in ${currency}; the budget is in ${SERVICE_CURRENCY}.` };
  }
  if (found.length === 0) return { state: 'unknown', reason: none };
  const bad = found.find((f) => typeof f.value !== 'number' || !Number.isFinite(f.value));
  if (bad) return { state: 'invalid', reason: `The estimate's ${bad.name} is not a number (${JSON.stringify(bad.value)?.slice(0, 40)}).` };
  const negative = found.find((f) => (f.value as number) < 0);
  if (negative) return { state: 'invalid', reason: `The estimate's ${negative.name} is negative (${String(negative.value)}).` };
  const amounts = new Set(found.map((f) => cents(f.value as number)));
  if (amounts.size > 1) {
    return { state: 'invalid', reason: `The estimate names several different amounts (${found.map((f) => `${f.name} ${String(f.value)}`).join(', ')}).` };
  }
  return { state: 'known', eur: [...amounts][0]! };
}

/**
 * The price of one download from a composite/estimate answer: its money fields (CreditEstimate,
 * priceEur, …; null ones are absent), which must name one amount.
 */
export function downloadCost(answer: unknown): Cost {
  if (!isRecord(answer)) return { state: 'unknown', reason: 'The estimate is not an object.' };
  const found = Object.entries(answer)
    .filter(([k, v]) => v !== null && v !== undefined && !isRecord(v) && !Array.isArray(v) && typeof v !== 'boolean' && MONEY_NAME.test(k) && !NOT_MONEY_NAME.test(k) && !/^currency/i.test(k))
    .map(([name, value]) => ({ name, value }));
  return oneOf(found, currencyOf(answer), 'The estimate names no amount of money.');
}

/** Every number (or would-be amount) in an answer, with its dotted path and its leaf name squashed. */
function leaves(data: unknown, at = ''): { name: string; leaf: string; value: unknown }[] {
  if (!isRecord(data)) return [];
  return Object.entries(data).flatMap(([k, v]) => {
    const name = at ? `${at}.${k}` : k;
    if (isRecord(v)) return leaves(v, name);
    return Array.isArray(v) || v === null || v === undefined ? [] : [{ name, leaf: squash(k), value: v }];
  });
}

/** Every currency an answer names, at any depth. */
function currencies(data: unknown): string[] {
  if (!isRecord(data)) return [];
  const own = currencyOf(data);
  return [...(own ? [own] : []), ...Object.values(data).flatMap(currencies)];
}

/**
 * What an amount in an order estimate is, by its name's meaning (the contract does not show an
 * estimate's fields; production and the variant style name them differently):
 * - `charged`: what creating the order charges this month (CurrentMonthCost,
 *   Costs.CurrentMonthOrderCostEstimate);
 * - `historic`: the order's images up to today (TotalHistoricCost, HistoricOrderCostEstimate);
 * - `monthly`: a recurring order's cost per later month (NextMonthCost, RecurringCostsEstimate, …);
 * - `storage`: storage costs of any period;
 * - `account`: the account's costs this month so far, not this order's (CurrentMonthCosts);
 * - `other`: any other amount.
 */
export type OrderAmountKind = 'charged' | 'historic' | 'monthly' | 'storage' | 'account' | 'other';

const ORDER_AMOUNT_KINDS: readonly (readonly [OrderAmountKind, RegExp])[] = [
  ['account', /^currentmonthcosts$/i],
  ['storage', /storage(cost|costs)(estimate)?$/i],
  ['charged', /^currentmonth(order)?cost(estimate)?$/i],
  ['historic', /^(total)?historic(order)?cost(estimate)?$|^totalcost$/i],
  ['monthly', /^nextmonth(order|recurring)?cost(estimate)?$|^recurring(order)?costs?(estimate)?$/i],
];

/** The kind of an order estimate's amount from its own (leaf) name. */
export function orderAmountKind(name: string): OrderAmountKind {
  const leaf = squash(name);
  return ORDER_AMOUNT_KINDS.find(([, re]) => re.test(leaf))?.[0] ?? 'other';
}

/** One amount of money an order estimate names. */
export interface OrderAmount {
  /** Dotted path in the answer (Costs.HistoricOrderCostEstimate). */
  name: string;
  kind: OrderAmountKind;
  value: number;
}

/**
 * Every amount of money in an order estimate, at any depth: finite numbers whose names say money
 * (null ones are absent), each with its kind, and the one currency they are in (null when the
 * answer names none, 'several currencies' when it names more than one).
 */
export function orderAmounts(estimate: unknown): { amounts: OrderAmount[]; currency: string | null } {
  const amounts = leaves(estimate)
    .filter((l) => typeof l.value === 'number' && Number.isFinite(l.value))
    .filter((l) => MONEY_NAME.test(l.leaf) && !NOT_MONEY_NAME.test(l.leaf))
    .map((l) => ({ name: l.name, kind: orderAmountKind(l.leaf), value: l.value as number }));
  return { amounts, currency: currencyIn(estimate) };
}

function currencyIn(data: unknown): string | null {
  const named = new Set(currencies(data));
  return named.size === 0 ? null : named.size === 1 ? [...named][0]! : 'several currencies';
}

/**
 * What creating an order charges this month, from its estimate: the fields whose names say this
 * month's cost of the order (CurrentMonthCost, Costs.CurrentMonthOrderCostEstimate, camelCase alike;
 * never CurrentMonthCosts, the account's spend so far), else its historic or total cost. They must
 * agree; none is unknown.
 */
export function orderCost(estimate: unknown): Cost {
  const all = leaves(estimate);
  const currency = currencyIn(estimate);
  for (const kind of ['charged', 'historic'] as const) {
    const found = all.filter((l) => orderAmountKind(l.leaf) === kind);
    if (found.length) return oneOf(found, currency, '');
  }
  return oneOf([], currency, "The order estimate names no cost for this month.");
}

/** Adds costs up: unknown when one is, invalid when one is (invalid first). */
export function sumCosts(costs: readonly Cost[]): Cost {
  const invalid = costs.find((c) => c.state === 'invalid');
  if (invalid) return invalid;
  const unknown = costs.find((c) => c.state === 'unknown');
  if (unknown) return unknown;
  return { state: 'known', eur: cents(costs.reduce((s, c) => s + (c.state === 'known' ? c.eur : 0), 0)) };
}

/** The cost in words: "12.40 EUR", or why it is not known. */
export function describeCost(cost: Cost): string {
  return cost.state === 'known' ? `${cost.eur.toFixed(2)} ${SERVICE_CURRENCY}` : `unknown (${cost.reason})`;
}
