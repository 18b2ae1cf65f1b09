/**
 * A scale bar for a map of known ground width: the longest "nice" length (1, 2 or 5 times a power
 * of ten metres) that fits in a share of the map's width, and its metric label.
 */

/** Radius of the sphere EPSG:3857 projects (metres). */
const MERCATOR_RADIUS = 6378137;

/** A scale bar: its ground length, its label and the share of the map's width it spans. */
export interface ScaleBar {
  /** Ground length in metres: 1, 2 or 5 × 10^n. */
  metres: number;
  /** "500 m", "2 km", "0.5 m". */
  label: string;
  /** The bar's width as a share of the map's width (0..maxShare]. */
  share: number;
}

/** A length in metres as a scale bar labels it: metres below 1 km, else kilometres. */
export function lengthLabel(metres: number): string {
  const trim = (v: number): string => String(Number(v.toPrecision(6)));
  return metres >= 1000 ? `${trim(metres / 1000)} km` : `${trim(metres)} m`;
}

/**
 * The scale bar of a map `groundWidthM` metres wide on the ground: the largest nice length no
 * longer than `maxShare` of that width. Refuses a width that is not a positive finite number.
 */
export function scaleBar(groundWidthM: number, maxShare = 0.25): ScaleBar {
  if (!Number.isFinite(groundWidthM) || groundWidthM <= 0) throw new RangeError(`groundWidthM: a positive number of metres, not ${groundWidthM}.`);
  if (!(maxShare > 0 && maxShare <= 1)) throw new RangeError(`maxShare: a share in (0, 1], not ${maxShare}.`);
  const limit = groundWidthM * maxShare;
  let power = 10 ** Math.floor(Math.log10(limit));
  // Guard against log10 rounding just past a power of ten.
  if (power > limit) power /= 10;
  const metres = [5, 2, 1].map((m) => m * power).find((m) => m <= limit * (1 + 1e-12)) ?? power;
  return { metres, label: lengthLabel(metres), share: metres / groundWidthM };
}

/**
 * The ground width (metres) of a Web Mercator (EPSG:3857) extent `width` projected metres wide,
 * measured along the parallel at `latDeg` (the map's centre): projected metres shrink by cos(lat).
 */
export function mercatorGroundWidth(width: number, latDeg: number): number {
  return width * Math.cos((latDeg * Math.PI) / 180);
}

/** The latitude (degrees) of a Web Mercator northing. */
export function mercatorLatitude(y: number): number {
  return (2 * Math.atan(Math.exp(y / MERCATOR_RADIUS)) - Math.PI / 2) * (180 / Math.PI);
}
