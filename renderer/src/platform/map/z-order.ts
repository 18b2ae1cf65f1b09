/**
 * The map's stacking order, bottom to top: the basemaps (0 and 1), the raster previews opened from
 * the Library (PREVIEW_Z_BASE and up, one step per layer), the change layer (CHANGE_Z), then every
 * vector overlay (the AOI, footprints, orders, their labels, place names) at OVERLAY_Z_BASE plus its
 * own rank. What the analyst drew or ordered is never hidden by a raster, however many are open.
 */

/** zIndex of the lowest preview layer: above the basemaps, below the change layer and every overlay. */
export const PREVIEW_Z_BASE = 100;

/** zIndex of the overlays' floor: far above any number of open previews. */
export const OVERLAY_Z_BASE = 1_000_000;

/** zIndex of the change layer: above the previews it was computed from, below the overlays. */
export const CHANGE_Z = OVERLAY_Z_BASE - 1;

/** zIndex of a vector overlay of `rank` (its place among the overlays, 0-100). */
export function overlayZ(rank: number): number {
  return OVERLAY_Z_BASE + rank;
}
