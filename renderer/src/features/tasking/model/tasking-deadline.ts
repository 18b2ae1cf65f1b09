/**
 * The renewal deadline of recurring orders: a recurring order that is no longer
 * wanted must be cancelled before 00:00 UTC on the 1st of the next month
 * (contract 4.5, rule 4). The month is the UTC month, whatever the local clock
 * says: on 30 November at 20:00 in New York it is already December in UTC.
 */

const HOUR_MS = 3_600_000;

/** Hours before the deadline from which the app warns. */
export const RENEWAL_WARN_HOURS = 72;

/** 00:00 UTC on the 1st of the UTC month after `now`. */
export function renewalDeadline(now: Date | number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

/** "2 d 03 h 15 min", "5 h 07 min", "12 min", "under 1 min", "passed". */
export function formatCountdown(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return 'passed';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'under 1 min';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (days > 0) return `${days} d ${pad(hours)} h ${pad(mins)} min`;
  if (hours > 0) return `${hours} h ${pad(mins)} min`;
  return `${mins} min`;
}

/** "2026-12-01 00:00 UTC". */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 16)} UTC`;
}

const localFormats = new Map<string, Intl.DateTimeFormat>();

/** The instant in a time zone (the system's when none is given), with the zone's name, e.g. "Mon, 30 Nov 2026, 19:00 EST". */
export function formatLocal(date: Date, timeZone?: string, locale = 'en-GB'): string {
  // A DateTimeFormat costs tens of milliseconds to build (ICU's zone data) and the deadline ticks every
  // minute: one per locale and zone, a handful at most.
  const key = `${locale}|${timeZone ?? ''}`;
  let format = localFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, {
      weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false,
      timeZone, timeZoneName: 'short',
    });
    if (localFormats.size >= 16) localFormats.clear();
    localFormats.set(key, format);
  }
  return format.format(date);
}

/** Everything the panel shows about one deadline. */
export interface DeadlineInfo {
  deadline: Date;
  remainingMs: number;
  /** Less than {@link RENEWAL_WARN_HOURS} hours left. */
  warn: boolean;
  utc: string;
  local: string;
  countdown: string;
}

/** The next renewal deadline seen from `now`, formatted in UTC and in `timeZone` (the system's by default). */
export function deadlineInfo(now: Date | number, opts: { timeZone?: string; warnHours?: number } = {}): DeadlineInfo {
  const deadline = renewalDeadline(now);
  const remainingMs = deadline.getTime() - new Date(now).getTime();
  return {
    deadline,
    remainingMs,
    warn: remainingMs < (opts.warnHours ?? RENEWAL_WARN_HOURS) * HOUR_MS,
    utc: formatUtc(deadline),
    local: formatLocal(deadline, opts.timeZone),
    countdown: formatCountdown(remainingMs),
  };
}
