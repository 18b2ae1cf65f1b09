import { isAbortError } from '../../common/abort.js';
import { downloadCost, orderCost, sumCosts, type Cost } from '../../common/money.js';
import { requireCanonical, type ServiceClient } from '../api';
import { limitsFromAccountInfo, planComposite, withDate, type BatchLimits, type BatchPlan, type CompositeBody } from '../batch-plan/index.js';
import { estimateBatch, type AreaCreditEstimate, type BatchEstimate } from './batch-estimate.js';

/**
 * Main's own estimates, the spend guard's source of costs: composite/estimate for downloads (every
 * part of a split batch, every date of a series) and orders/estimate for orders. An answer is kept
 * briefly, keyed by the profile and the exact request, so an estimate the analyst just saw is the
 * one the guard decides on, and nothing else is: a cost a page claims is never read.
 */

/** The service calls estimating needs (the app's ServiceClient). */
export type EstimateClient = Pick<ServiceClient, 'compositeEstimate' | 'estimateOrder' | 'accountInfo' | 'account' | 'concurrency'>;

/** How long main's own estimate of a request stands for it, ms. */
export const ESTIMATE_FRESH_MS = 60_000;

/** A download as the queue holds it: what its cost is estimated from. */
export interface DownloadToEstimate {
  kind: 'composite' | 'tile' | 'minitile';
  request: Record<string, unknown>;
  batch?: { type: 'split' | 'series'; limits: BatchLimits; dates?: string[] };
}

/** The fields of a tile or mini-tile download that composite/estimate prices. */
const TILE_ESTIMATE_FIELDS = ['TileGuid', 'MiniTileGuid', 'Date', 'Model', 'SatelliteConstellations'];

/** Main's estimates, cached per profile and exact request (see the module comment). */
export class Estimator {
  private readonly cache = new Map<string, { at: number; answer: Promise<unknown> }>();

  constructor(private readonly now: () => number = Date.now, private readonly freshMs = ESTIMATE_FRESH_MS) {}

  /**
   * The answer kept for `key`, else `ask`'s (kept); `fresh`: always ask (what the analyst asked for
   * explicitly). A kept answer still on its way that another caller cancelled is asked again.
   */
  private cached<T>(key: string, ask: () => Promise<T>, signal: AbortSignal, fresh = false): Promise<T> {
    const t = this.now();
    for (const [k, v] of this.cache) if (t - v.at > this.freshMs) this.cache.delete(k);
    const hit = fresh ? undefined : this.cache.get(key);
    if (hit) {
      return (hit.answer as Promise<T>).catch((error: unknown) => {
        const cancelled = isAbortError(error) || (error as { kind?: unknown } | null)?.kind === 'cancelled';
        if (signal.aborted || !cancelled) throw error;
        return this.cached(key, ask, signal, true);
      });
    }
    const answer = ask();
    this.cache.set(key, { at: t, answer });
    // A failed estimate is asked again next time.
    answer.catch(() => {
      if (this.cache.get(key)?.answer === answer) this.cache.delete(key);
    });
    return answer;
  }

  /** composite/estimate of one exact body (`fresh`: asked now, whatever is kept). */
  composite(c: EstimateClient, profileId: string, body: Record<string, unknown>, signal: AbortSignal, fresh = false): Promise<AreaCreditEstimate> {
    return this.cached(`${profileId}\ncomposite\n${JSON.stringify(body)}`, () => c.compositeEstimate(body as never, signal) as Promise<AreaCreditEstimate>, signal, fresh);
  }

  /**
   * orders/estimate of one exact payload (the text create sends). `fresh`: asked now, whatever is
   * kept (the service compares a create with the last order it estimated).
   */
  order(c: EstimateClient, profileId: string, payload: string, signal: AbortSignal, fresh = false): Promise<{ estimate: unknown; payload: string }> {
    return this.cached(`${profileId}\norder\n${payload}`, () => c.estimateOrder(payload, signal), signal, fresh);
  }

  /** Every part of a plan estimated (kept per part; `fresh`: asked now) and summed. */
  batch(c: EstimateClient, profileId: string, plan: BatchPlan, signal: AbortSignal, fresh = false): Promise<BatchEstimate> {
    return estimateBatch(plan, (body, s) => this.composite(c, profileId, body as unknown as Record<string, unknown>, s, fresh), { signal, parallelism: c.concurrency });
  }

  /** What an order payload costs this month, from main's own estimate of it. */
  async orderCost(c: EstimateClient, profileId: string, payload: string, signal: AbortSignal): Promise<Cost> {
    return orderCost((await this.order(c, profileId, payload, signal)).estimate);
  }

  /** What a download costs: a tile's or mini-tile's price, or the sum over a composite's parts (and a series' dates). */
  async downloadCost(c: EstimateClient, profileId: string, d: DownloadToEstimate, signal: AbortSignal): Promise<Cost> {
    // Fields are read by their exact names below: a body in another spelling is never priced.
    requireCanonical(d.kind, d.request);
    if (d.kind !== 'composite') {
      const body = Object.fromEntries(TILE_ESTIMATE_FIELDS.filter((k) => d.request[k] != null).map((k) => [k, d.request[k]]));
      return downloadCost(await this.composite(c, profileId, body, signal));
    }
    const unpriced = automaticOrderCost(d.request);
    if (unpriced) return unpriced;
    const dates = d.batch?.type === 'series' ? d.batch.dates ?? [] : [];
    const request = { ...d.request, ...(dates.length && d.request.Date == null ? { Date: dates[0] } : {}) } as unknown as CompositeBody;
    const limits = d.batch?.limits ?? limitsFromAccountInfo((c.account ?? (await c.accountInfo(signal))) as Record<string, unknown>);
    const plan = planComposite(request, limits);
    const plans = dates.length ? dates.map((date) => withDate(plan, date)) : [plan];
    const costs: Cost[] = [];
    for (const p of plans) costs.push((await this.batch(c, profileId, p, signal)).cost);
    return sumCosts(costs);
  }
}

/**
 * The cost of a composite request with AutomaticOrderCreation on: unknown, since the service may
 * create (and charge) an order for what no order covers yet, which no estimate prices. Null when it is off.
 */
export function automaticOrderCost(request: Record<string, unknown>): Cost | null {
  if (request.AutomaticOrderCreation !== true) return null;
  return { state: 'unknown', reason: 'AutomaticOrderCreation is on: the service may create and charge an order, which no estimate prices.' };
}
