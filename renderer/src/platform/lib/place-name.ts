/** Where something was computed or shown, as file names say it (a series' CSV, a film). */

/** A lon/lat as a file-name tag: `13.400E52.503N`. */
export function placeTag(lon: number, lat: number): string {
  return `${Math.abs(lon).toFixed(3)}${lon < 0 ? 'W' : 'E'}${Math.abs(lat).toFixed(3)}${lat < 0 ? 'S' : 'N'}`;
}

/** Where a series was computed, for its file name: the AOI (its name, else its centre, and its area) or the point. */
export function seriesPlace(target: { kind: 'area'; label: string | null; centre: [number, number]; areaKm2: number | null } | { kind: 'point'; lon: number; lat: number }): string {
  if (target.kind === 'point') return `point-${placeTag(target.lon, target.lat)}`;
  const name = (target.label ?? '').replace(/\.[A-Za-z0-9]{1,8}$/, '').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
  const area = target.areaKm2 !== null ? `-${Number(target.areaKm2.toPrecision(3))}km2` : '';
  return `aoi-${name || placeTag(...target.centre)}${area}`;
}
