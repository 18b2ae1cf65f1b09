/** The cost of a whole batch, as the sum of the service's estimates for its parts. */
import { mapLimit } from './abort.js';
import type { BatchPlan, CompositeBody } from './plan.js';

/** The fields of a composite/estimate answer the batch sums; the rest is kept per part. */
export interface AreaCreditEstimate {
  AreaEstimateKm2: number;
  CreditEstimate: number;
  [field: string]: unknown;
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
    const area = Number(detail.AreaEstimateKm2);
    const credit = Number(detail.CreditEstimate);
    if (!Number.isFinite(area) || !Number.isFinite(credit)) {
      throw new Error(`The estimate of part ${part.index + 1} has no numeric AreaEstimateKm2 and CreditEstimate.`);
    }
    return { index: part.index, block: part.block, bandGroup: part.bandGroup, AreaEstimateKm2: area, CreditEstimate: credit, detail };
  });
  const currencies = new Set(parts.map((p) => p.detail.CurrencyCode).filter((c): c is string => typeof c === 'string'));
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
