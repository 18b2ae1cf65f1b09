/** Dates as maps print them: the UTC calendar day (and time), never the viewer's local zone. */

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * "2026-04-10" for a day, a timestamp (ms) or an ISO date-time, read in UTC; with `time`, a
 * date-time is "2026-04-10 10:32 UTC". Refuses what is not a date.
 */
export function utcDateLabel(value: string | number | Date, options: { time?: boolean } = {}): string {
  if (typeof value === 'string' && DAY.test(value)) {
    if (Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw new RangeError(`Not a date: ${value}.`);
    return value;
  }
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) throw new RangeError(`Not a date: ${String(value)}.`);
  const iso = d.toISOString();
  return options.time ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso.slice(0, 10);
}

/** The dates of several rasters as one label: "2026-04-10", "2026-04-10, 2026-05-02" or "2026-04-10 to 2026-08-20 (12 dates)". */
export function utcDatesLabel(dates: readonly string[], listUpTo = 3): string {
  const days = [...new Set(dates.map((d) => utcDateLabel(d)))].sort();
  if (days.length === 0) return '';
  if (days.length <= listUpTo) return days.join(', ');
  return `${days[0]} to ${days[days.length - 1]} (${days.length} dates)`;
}
