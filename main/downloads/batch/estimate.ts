/** The cost of a whole batch, as the sum of the service's estimates for its parts. */
import { mapLimit } from './abort.js';
import type { BatchPlan, CompositeBody } from './plan.js';

/** A composite/estimate answer: its fields are the service's (the contract does not show them). */
export type AreaCreditEstimate = Record<string, unknown>;

/** Names that say square kilometres (AreaEstimateKm2, areaSqKm, ...), and the raw area before a minimum. */
const KM2 = /km2|sq_?km|square_?kilomet/i;
const RAW_AREA = /before|raw|minimum/i;
/** Names that say money (CreditEstimate, priceEur, cost, ...), and numbers that are not money. */
const MONEY = /credit|euro|eur$|price|cost|amount|total|charge|fee/i;
const NOT_MONEY = /count|band|km2|sqkm|area|percent|bytes|size|days|months|requests|rate|limit|balance/i;

/**
 * The area, credit and currency of one estimate, found by what the fields say: the number
 * whose name says km² (the billed one rather than the raw one), the number whose name says
 * money, and a three-letter currency code.
 */
export function readEstimate(detail: AreaCreditEstimate): { area: number; credit: number; currency: string | null } {
  const numbers = Object.entries(detail).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]));
  const areas = numbers.filter(([k]) => KM2.test(k));
  const area = (areas.find(([k]) => !RAW_AREA.test(k)) ?? areas[0])?.[1];
  const credit = numbers.find(([k]) => MONEY.test(k) && !NOT_MONEY.test(k))?.[1];
  const currency = Object.entries(detail).find(([k, v]) => /^currency(code)?$/i.test(k) && typeof v === 'string' && /^[A-Z]{3}$/.test(v))?.[1] as string | undefined;
  return { area: area ?? NaN, credit: credit ?? NaN, currency: currency ?? null };
}

/** Asks the service (composite/estimate) about one part's body. */
export type EstimateOne = (body: CompositeBody, signal: AbortSignal) => Promise<AreaCreditEstimate>;

/** One part's estimate. */
export interface PartEstimate {
  index: number;
  block: number;
  bandGroup: number;
  AreaEstimateKm2: number;
  CreditEstimate: number;
  /** The currency the answer names, if any. */
  currency: string | null;
  /** The service's whole answer for this part. */
  detail: AreaCreditEstimate;
}

/** The batch total and its parts. */
export interface BatchEstimate {
  /** Area of the AOI: each block counted once, however many band groups it is fetched in. */
  AreaEstimateKm2: number;
  /** Area the service bills: every part's area, band groups included. */
  BilledAreaKm2: number;
  /** Sum of every part's credit, rounded to cents. */
  CreditEstimate: number;
  /** The currency the parts agree on, if they name one. */
  CurrencyCode: string | null;
  parts: PartEstimate[];
}

/** Options of {@link estimateBatch}. */
export interface EstimateBatchOptions {
  signal: AbortSignal;
  /** Estimates in flight at once. Default 4. */
  parallelism?: number;
}

function cents(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Estimates every part with bounded parallelism and sums them; the first failing part fails the whole estimate. */
export async function estimateBatch(plan: BatchPlan, estimateOne: EstimateOne, opts: EstimateBatchOptions): Promise<BatchEstimate> {
  const parts = await mapLimit(plan.parts, opts.parallelism ?? 4, opts.signal, async (part, _i, signal) => {
    const detail = await estimateOne(part.body, signal);
    const { area, credit, currency } = readEstimate(detail);
    if (!Number.isFinite(area) || !Number.isFinite(credit)) {
      throw new Error(`The estimate of part ${part.index + 1} names no area in km² and no credit amount.`);
    }
    return { index: part.index, block: part.block, bandGroup: part.bandGroup, AreaEstimateKm2: area, CreditEstimate: credit, currency, detail };
  });
  const currencies = new Set(parts.map((p) => p.currency).filter((c): c is string => c !== null));
  return {
    AreaEstimateKm2: parts.filter((p) => p.bandGroup === 0).reduce((s, p) => s + p.AreaEstimateKm2, 0),
    BilledAreaKm2: parts.reduce((s, p) => s + p.AreaEstimateKm2, 0),
    CreditEstimate: cents(parts.reduce((s, p) => s + p.CreditEstimate, 0)),
    CurrencyCode: currencies.size === 1 ? [...currencies][0]! : null,
    parts,
  };
}

/** Adds up several batch estimates (a time series: one batch per date). */
export function sumEstimates(estimates: readonly BatchEstimate[]): Omit<BatchEstimate, 'parts'> & { batches: number } {
  const currencies = new Set(estimates.map((e) => e.CurrencyCode));
  return {
    AreaEstimateKm2: estimates.reduce((s, e) => s + e.AreaEstimateKm2, 0),
    BilledAreaKm2: estimates.reduce((s, e) => s + e.BilledAreaKm2, 0),
    CreditEstimate: cents(estimates.reduce((s, e) => s + e.CreditEstimate, 0)),
    CurrencyCode: currencies.size === 1 ? [...currencies][0]! : null,
    batches: estimates.length,
  };
}
