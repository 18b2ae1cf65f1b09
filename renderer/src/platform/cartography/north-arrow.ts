/**
 * A north arrow as SVG: a split arrowhead over an "N", drawn in a 24 × 32 box, turned by the map's
 * rotation so it points to grid north of the view.
 */

/** The arrowhead's left half (filled) and right half (open), tip at (12, 0). */
export const NORTH_ARROW_LEFT = 'M12 0 L4 22 L12 17 Z';
export const NORTH_ARROW_RIGHT = 'M12 0 L20 22 L12 17 Z';
/** The "N" under the arrow, as strokes. */
export const NORTH_ARROW_N = 'M8 32 V24 L16 32 V24';

/** An SVG element's markup: the arrow at `size` px tall, rotated by `rotationRad` (OpenLayers' view rotation, clockwise positive). */
export function northArrowSvg(size: number, rotationRad = 0, color = '#111'): string {
  if (!(size > 0 && Number.isFinite(size))) throw new RangeError(`size: a positive number, not ${size}.`);
  const deg = Number(((rotationRad * 180) / Math.PI).toFixed(3));
  const w = Number(((size * 24) / 32).toFixed(3));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${size}" viewBox="0 0 24 32" role="img" aria-label="North">`
    + `<g transform="rotate(${deg} 12 16)"><path d="${NORTH_ARROW_LEFT}" fill="${color}"/><path d="${NORTH_ARROW_RIGHT}" fill="#fff" stroke="${color}" stroke-width="1" stroke-linejoin="round"/></g>`
    + `<path d="${NORTH_ARROW_N}" fill="none" stroke="${color}" stroke-width="1.6" stroke-linejoin="round"/></svg>`;
}
