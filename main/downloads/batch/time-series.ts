/**
 * Time series: the same AOI and settings downloaded for every date with imagery in a period. The
 * geometry is planned once; each date gets a copy of that plan with its Date, and all dates run as
 * one job through {@link runBatches}.
 */
import { throwIfAborted } from '../../../common/abort.js';
import { PlanError } from './geo.js';
import { planComposite, type BatchLimits, type BatchPlan, type CompositeBody, type PlanOptions } from './plan.js';
import {
  defaultBatchName,
  runBatches,
  type BatchProgress,
  type BatchResult,
  type RunBatchDeps,
  type RunBatchOptions,
} from './run-batch.js';

/** The search/available query a time series asks (contract 4.3; the period end is sent as Until). */
export interface AvailabilityQuery {
  Wkt?: string | null;
  GeoJson?: unknown;
  From: string;
  Until: string | null;
  Model?: string;
  SatelliteConstellations?: string[] | null;
}

/** Calls search/available (through the service client) and returns the dates it lists. */
export type ListAvailableDates = (query: AvailabilityQuery, signal: AbortSignal) => Promise<string[]>;

/** A period: From and Until as the service accepts them (date or date-time); Until null means up to now. */
export interface Period {
  from: string;
  until: string | null;
}

/** One batch per available date, all of the same request. */
export interface TimeSeriesPlan {
  kind: 'time-series';
  request: CompositeBody;
  period: Period;
  /** YYYY-MM-DD, ascending, each once. */
  dates: string[];
  batches: { date: string; plan: BatchPlan }[];
}

const DAY = /^\d{4}-\d{2}-\d{2}/;

/** The sorted, distinct dates of a search/available Data record (ModelImageDates[].DatesByGeog[].Dates), optionally for one model. */
export function datesFromSearchAvailable(data: unknown, filter: { model?: string | null } = {}): string[] {
  const out = new Set<string>();
  const groups = (data as { ModelImageDates?: unknown } | null)?.ModelImageDates;
  if (!Array.isArray(groups)) return [];
  for (const g of groups as { Model?: unknown; DatesByGeog?: unknown }[]) {
    if (filter.model && g?.Model !== filter.model) continue;
    if (!Array.isArray(g?.DatesByGeog)) continue;
    for (const d of g.DatesByGeog as { Dates?: unknown }[]) {
      if (!Array.isArray(d?.Dates)) continue;
      for (const x of d.Dates) if (typeof x === 'string' && DAY.test(x)) out.add(x.slice(0, 10));
    }
  }
  return [...out].sort();
}

/** A copy of a plan for another date: the request and every part body get Date = date. */
export function withDate(plan: BatchPlan, date: string): BatchPlan {
  return {
    ...plan,
    request: { ...plan.request, Date: date },
    parts: plan.parts.map((p) => ({ ...p, body: { ...p.body, Date: date } })),
  };
}

function day(s: string): string {
  return s.slice(0, 10);
}

/** Lists the dates with imagery in the period (through `listDates`) and plans one batch of the request per date. */
export async function planTimeSeries(
  request: CompositeBody,
  period: Period,
  limits: BatchLimits,
  listDates: ListAvailableDates,
  signal: AbortSignal,
  options: PlanOptions = {},
): Promise<TimeSeriesPlan> {
  throwIfAborted(signal);
  if (!DAY.test(period.from) || (period.until !== null && !DAY.test(period.until))) {
    throw new PlanError('From', 'The period needs From (and Until, unless open-ended) as dates.');
  }
  if (period.until !== null && day(period.until) < day(period.from)) throw new PlanError('Until', 'Until is before From.');
  // Plan first: a request that cannot be planned should fail before any service call.
  const base = planComposite({ ...request, Date: request.Date ?? day(period.from) }, limits, options);
  const query: AvailabilityQuery = { From: period.from, Until: period.until };
  if (request.Wkt != null && request.Wkt !== '') query.Wkt = request.Wkt;
  else query.GeoJson = request.GeoJson;
  if (typeof request.Model === 'string') query.Model = request.Model;
  if (Array.isArray(request.SatelliteConstellations)) query.SatelliteConstellations = request.SatelliteConstellations as string[];
  const listed = await listDates(query, signal);
  throwIfAborted(signal);
  const from = day(period.from);
  const until = period.until === null ? null : day(period.until);
  const dates = [...new Set(listed.filter((d) => typeof d === 'string' && DAY.test(d)).map(day))]
    .filter((d) => d >= from && (until === null || d <= until))
    .sort();
  return {
    kind: 'time-series',
    request,
    period,
    dates,
    batches: dates.map((date) => ({ date, plan: withDate(base, date) })),
  };
}

/** Runs every date's batch as one job (shared download pool, one progress) and returns each date's result. */
export async function runTimeSeries(
  series: TimeSeriesPlan,
  deps: RunBatchDeps,
  targetDir: string,
  signal: AbortSignal,
  onProgress: (p: BatchProgress) => void,
  options: Omit<RunBatchOptions, 'name'> = {},
): Promise<{ date: string; result: BatchResult }[]> {
  const results = await runBatches(
    series.batches.map((b) => ({ plan: b.plan, name: defaultBatchName(b.plan) })),
    deps,
    targetDir,
    signal,
    onProgress,
    options,
  );
  return series.batches.map((b, i) => ({ date: b.date, result: results[i]! }));
}
