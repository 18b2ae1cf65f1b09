/**
 * Which rasters become a film's frames: one per date, week, month or year (the clearest date of
 * each period: the highest valid share), each with at least the minimum valid share (clouds and
 * nodata are not valid), oldest first; every raster left out is listed with why.
 */

/** How often a frame is taken. */
export type FramePeriod = 'date' | 'week' | 'month' | 'year';

/** The periods offered, with labels. */
export const FRAME_PERIODS: { value: FramePeriod; label: string }[] = [
  { value: 'date', label: 'Every date' },
  { value: 'week', label: 'One per week' },
  { value: 'month', label: 'One per month' },
  { value: 'year', label: 'One per year' },
];

/** Default minimum valid share of a frame (0..1). */
export const DEFAULT_MIN_VALID = 0.8;

/** A raster that may become a frame. */
export interface FrameCandidate {
  id: string;
  /** YYYY-MM-DD (UTC), or null when the raster has no date. */
  date: string | null;
  /** Valid (not cloud, not nodata) pixels over the area, 0..1; null when it could not be measured. */
  validShare: number | null;
}

/** A raster left out of the film, and why. */
export interface DroppedFrame {
  id: string;
  date: string | null;
  reason: string;
}

/** The frames of a film (oldest first) and the rasters left out. */
export interface FramePlan {
  frames: (FrameCandidate & { date: string; validShare: number })[];
  dropped: DroppedFrame[];
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

/** The ISO 8601 week of a UTC date: "2026-W15". */
export function isoWeek(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  const day = (d.getUTCDay() + 6) % 7;
  // The Thursday of this week decides its year.
  d.setUTCDate(d.getUTCDate() - day + 3);
  const year = d.getUTCFullYear();
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const week = 1 + Math.round(((d.getTime() - jan4.getTime()) / 86_400_000 - 3 + ((jan4.getUTCDay() + 6) % 7)) / 7);
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The period a date falls in: the date itself, "2026-W15", "2026-04" or "2026". */
export function periodOf(date: string, period: FramePeriod): string {
  if (period === 'week') return isoWeek(date);
  if (period === 'month') return date.slice(0, 7);
  if (period === 'year') return date.slice(0, 4);
  return date;
}

/** Plans a film's frames from its candidates (see the module comment). */
export function planFrames(candidates: readonly FrameCandidate[], period: FramePeriod, minValid = DEFAULT_MIN_VALID): FramePlan {
  const dropped: DroppedFrame[] = [];
  const best = new Map<string, FramePlan['frames'][number]>();
  const sorted = [...candidates].sort((a, b) => (a.date ?? '').localeCompare(b.date ?? '') || a.id.localeCompare(b.id));
  for (const c of sorted) {
    if (!c.date) {
      dropped.push({ id: c.id, date: null, reason: 'It has no image date.' });
      continue;
    }
    if (c.validShare === null) {
      dropped.push({ id: c.id, date: c.date, reason: 'Its valid share over the area could not be measured (it does not cover the area).' });
      continue;
    }
    if (c.validShare < minValid) {
      dropped.push({ id: c.id, date: c.date, reason: `Clouds or no data: ${pct(c.validShare)} valid, below the ${pct(minValid)} minimum.` });
      continue;
    }
    const key = periodOf(c.date, period);
    const held = best.get(key);
    const frame = { ...c, date: c.date, validShare: c.validShare };
    if (!held) {
      best.set(key, frame);
      continue;
    }
    // The clearest date of the period; on a tie, the earlier one.
    const [keep, drop] = frame.validShare > held.validShare ? [frame, held] : [held, frame];
    best.set(key, keep);
    dropped.push({ id: drop.id, date: drop.date, reason: `Not the clearest of ${key}: ${keep.date} is ${pct(keep.validShare)} valid, this ${pct(drop.validShare)}.` });
  }
  const frames = [...best.values()].sort((a, b) => a.date.localeCompare(b.date));
  dropped.sort((a, b) => (a.date ?? '').localeCompare(b.date ?? ''));
  return { frames, dropped };
}

/** How a film runs: frames per second and the pause on its last frame. */
export interface FilmTiming {
  fps: number;
  /** Seconds the last frame stays. */
  pauseSeconds: number;
  /** Blended frames between two dates (0: none, a cut). */
  fade?: number;
}

/** The most blended frames between two dates. */
export const FADE_MAX = 10;

/** Blended frames between two dates: a cross-fade of `fade` frames, each the next date a step more opaque over the last. */
export function fadeFrames(t: FilmTiming): number {
  return Math.max(0, Math.min(FADE_MAX, Math.round(t.fade ?? 0)));
}

/** Frames a GIF of `frames` dates has: the dates and the blends between them (the pause is the last frame's delay). */
export function gifFrameCount(frames: number, t: FilmTiming): number {
  return frames === 0 ? 0 : frames + (frames - 1) * fadeFrames(t);
}

/** How many times the last frame is repeated to hold it `pauseSeconds` at `fps` (a video keeps one frame rate). */
export function pauseFrames(t: FilmTiming): number {
  return Math.max(0, Math.round(t.pauseSeconds * t.fps));
}

/** Frames a video of `frames` dates has: the dates, the blends between them and the repeated last frame. */
export function videoFrameCount(frames: number, t: FilmTiming): number {
  return frames === 0 ? 0 : gifFrameCount(frames, t) + pauseFrames(t);
}

/** The smallest and largest chosen size of a film, in px. */
export const FILM_SIZE_MIN = 400;
export const FILM_SIZE_MAX = 2500;
