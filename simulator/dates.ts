const DAY = 86_400_000;

/** Milliseconds of a YYYY-MM-DD (or date-time) at UTC. */
export function parseUtc(s: string): number {
  return s.length === 10 ? Date.parse(`${s}T00:00:00Z`) : Date.parse(s);
}

/** YYYY-MM-DD of a UTC instant. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Adds whole days to a YYYY-MM-DD. */
export function addDays(date: string, days: number): string {
  return isoDate(parseUtc(date) + days * DAY);
}

/** Adds calendar months to a YYYY-MM-DD, clamping to the month's last day. */
export function addMonths(date: string, months: number): string {
  const d = new Date(parseUtc(date));
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return isoDate(Date.UTC(y, m, Math.min(d.getUTCDate(), last)));
}

/** 00:00 UTC on the first day of the month after the instant. */
export function firstOfNextMonthUtc(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Last day (YYYY-MM-DD) of the UTC month of the instant. */
export function endOfMonthUtc(ms: number): string {
  return isoDate(firstOfNextMonthUtc(ms) - DAY);
}

/**
 * Cadence dates: ReferenceDate + k * frequency days, for every k that lands in [from, to].
 * The reference date need not lie inside the period.
 */
export function cadenceDates(referenceDate: string, frequency: number, from: string, to: string, max = 5000): string[] {
  const ref = parseUtc(referenceDate);
  const start = parseUtc(from);
  const end = parseUtc(to);
  if (end < start) return [];
  const step = frequency * DAY;
  let k = Math.ceil((start - ref) / step);
  const out: string[] = [];
  for (let t = ref + k * step; t <= end && out.length < max; k++, t = ref + k * step) out.push(isoDate(t));
  return out;
}
