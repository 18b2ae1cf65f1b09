/**
 * The ticks of a map's coordinate frame: round values along one edge, where they fall on it (0 at
 * the edge's start, 1 at its end) and their labels, in degrees (4326) or metres (a projected grid).
 */

/** One tick on a frame's edge. */
export interface FrameTick {
  value: number;
  /** Where on the edge, 0 (start, min) to 1 (end, max). */
  at: number;
  label: string;
}

/** The nice step (1, 2, 2.5 or 5 × 10^n) giving about `count` ticks over `span`. */
export function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw * (1 - 1e-9)) ?? 10 * power);
}

/** Decimals needed to tell ticks `step` apart (2.5 × 10^n needs one more). */
function decimals(step: number): number {
  const power = Math.floor(Math.log10(step) + 1e-9);
  const quarter = Math.abs(step / 10 ** power - 2.5) < 1e-6 ? 1 : 0;
  return Math.max(0, Math.min(10, -power + quarter));
}

/** A longitude or latitude label: "13.40°E", "52.50°N". */
export function degreeLabel(value: number, axis: 'lon' | 'lat', places: number): string {
  const hemisphere = axis === 'lon' ? (value < 0 ? 'W' : 'E') : value < 0 ? 'S' : 'N';
  const v = Math.abs(value).toFixed(places);
  return Number(v) === 0 ? `0°` : `${v}°${hemisphere}`;
}

/**
 * Ticks between `min` and `max` (both included when round), about `count` of them. `axis` names
 * what the values are: 'lon'/'lat' degrees, or 'x'/'y' metres of a projected grid ("390 000 m").
 */
export function frameTicks(min: number, max: number, axis: 'lon' | 'lat' | 'x' | 'y', count = 4): FrameTick[] {
  if (!(Number.isFinite(min) && Number.isFinite(max) && max > min)) throw new RangeError(`A frame edge runs from a smaller to a larger finite value, not ${min} to ${max}.`);
  const step = niceStep(max - min, count);
  const places = decimals(step);
  const ticks: FrameTick[] = [];
  for (let i = Math.ceil(min / step - 1e-9); i * step <= max + step * 1e-9; i++) {
    const value = Number((i * step).toFixed(10));
    const label = axis === 'lon' || axis === 'lat' ? degreeLabel(value, axis, places) : `${value.toLocaleString('en-US', { maximumFractionDigits: places }).replace(/,/g, ' ')} m`;
    ticks.push({ value, at: (value - min) / (max - min), label });
  }
  return ticks;
}
