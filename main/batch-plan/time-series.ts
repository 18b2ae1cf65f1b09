/**
 * The dates of a series: the same AOI and settings for every date with imagery in a period. The
 * geometry is planned once; each date gets a copy of that plan with its Date (the download job runs
 * them as one batch through runBatches).
 */
import type { BatchPlan } from './plan.js';

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
