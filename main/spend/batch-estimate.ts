/** The cost of a whole batch, as the sum of the service's estimates for its parts. */
import { currencyOf, downloadCost, sumCosts, type Cost } from '../../common/money.js';
import { mapLimit } from '../../common/map-limit.js';
import type { BatchPlan, CompositeBody } from '../batch-plan/plan.js';

/** A composite/estimate answer: its fields are the service's (the contract does not show them). */
export type AreaCreditEstimate = Record<string, unknown>;

/** Names that say square kilometres (AreaEstimateKm2, areaSqKm, ...), and the raw area before a minimum. */
const KM2 = /km2|sq_?km|square_?kilomet/i;
const RAW_AREA = /before|raw|minimum/i;
/**
 * The area, cost and currency of one estimate, found by what the fields say: the number whose
 * name says km² (the billed one rather than the raw one), the cost its money fields name
 * (common/money: unknown or invalid when they name none, a negative or several amounts), and a
 * three-letter currency code.
 */
export function readEstimate(detail: AreaCreditEstimate): { area: number; cost: Cost; currency: string | null } {
  const numbers = Object.entries(detail).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]));
  const areas = numbers.filter(([k]) => KM2.test(k));
  const area = (areas.find(([k]) => !RAW_AREA.test(k)) ?? areas[0])?.[1];
  return { area: area ?? NaN, cost: downloadCost(detail), currency: currencyOf(detail) };
}

/** Asks the service (composite/estimate) about one part's body. */
export type EstimateOne = (body: CompositeBody, signal: AbortSignal) => Promise<AreaCreditEstimate>;

/** One part's estimate. */
export interface PartEstimate {
  index: number;
  block: number;
  bandGroup: number;
  AreaEstimateKm2: number;
  /** What the part costs; null when its cost is not known ({@link PartEstimate.cost} says why). */
  CreditEstimate: number | null;
  cost: Cost;
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
  /** Sum of every part's credit, rounded to cents; null when one part's cost is not known. */
  CreditEstimate: number | null;
  /** The sum as a cost: unknown or invalid when one part's is. */
  cost: Cost;
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

/** Estimates every part with bounded parallelism and sums them; the first failing part fails the whole estimate. */
export async function estimateBatch(plan: BatchPlan, estimateOne: EstimateOne, opts: EstimateBatchOptions): Promise<BatchEstimate> {
  const parts = await mapLimit(plan.parts, opts.parallelism ?? 4, opts.signal, async (part, _i, signal) => {
    const detail = await estimateOne(part.body, signal);
    const { area, cost, currency } = readEstimate(detail);
    if (!Number.isFinite(area)) throw new Error(`The estimate of part ${part.index + 1} names no area in km².`);
    const partCost: Cost = cost.state === 'known' || plan.parts.length === 1 ? cost : { ...cost, reason: `Part ${part.index + 1}: ${cost.reason}` };
    return { index: part.index, block: part.block, bandGroup: part.bandGroup, AreaEstimateKm2: area, CreditEstimate: cost.state === 'known' ? cost.eur : null, cost: partCost, currency, detail };
  });
  const currencies = new Set(parts.map((p) => p.currency).filter((c): c is string => c !== null));
  const cost = sumCosts(parts.map((p) => p.cost));
  return {
    AreaEstimateKm2: parts.filter((p) => p.bandGroup === 0).reduce((s, p) => s + p.AreaEstimateKm2, 0),
    BilledAreaKm2: parts.reduce((s, p) => s + p.AreaEstimateKm2, 0),
    CreditEstimate: cost.state === 'known' ? cost.eur : null,
    cost,
    CurrencyCode: currencies.size === 1 ? [...currencies][0]! : null,
    parts,
  };
}

/** Adds up several batch estimates (a time series: one batch per date). */
export function sumEstimates(estimates: readonly BatchEstimate[]): Omit<BatchEstimate, 'parts'> & { batches: number } {
  const currencies = new Set(estimates.map((e) => e.CurrencyCode));
  const cost = sumCosts(estimates.map((e) => e.cost));
  return {
    AreaEstimateKm2: estimates.reduce((s, e) => s + e.AreaEstimateKm2, 0),
    BilledAreaKm2: estimates.reduce((s, e) => s + e.BilledAreaKm2, 0),
    CreditEstimate: cost.state === 'known' ? cost.eur : null,
    cost,
    CurrencyCode: currencies.size === 1 ? [...currencies][0]! : null,
    batches: estimates.length,
  };
}
