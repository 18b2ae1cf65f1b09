import { AppError } from '../../common/errors.js';
import { BRIEF_RASTERS_MAX } from '../../common/library-selection.js';
import type { LibraryEntry } from './entry.js';

/**
 * What the Library's selection hands on, checked against the library: every id is a raster of the
 * library (once), and the rasters suit their use.
 * - A film: its frames share one grid, as a time series' dates do: the first raster's CRS and band
 *   list on every raster (so one display colours them all), each dated, and footprints that share an
 *   area (one lon/lat box lies in every footprint). A selection of several areas is refused, naming
 *   the first raster that leaves the others' common area.
 * - A brief: at most {@link BRIEF_RASTERS_MAX} rasters (each has a legend on the page).
 * The refusal names the field (`ids[i]`) and the reason. The entries come oldest image first (undated last).
 */
export function checkSelection(ids: readonly string[], use: 'film' | 'brief', get: (id: string) => LibraryEntry | undefined): LibraryEntry[] {
  const refuse = (field: string, reason: string): never => {
    throw new AppError('validation', `${field}: ${reason}`, { fields: { [field]: [reason] } });
  };
  if (use === 'brief' && ids.length > BRIEF_RASTERS_MAX) refuse('ids', `a brief shows at most ${BRIEF_RASTERS_MAX} rasters, not ${ids.length}: select fewer.`);
  const seen = new Set<string>();
  const entries = ids.map((id, i) => {
    if (seen.has(id)) refuse(`ids[${i}]`, `${id} is listed twice.`);
    seen.add(id);
    return get(id) ?? refuse(`ids[${i}]`, `no raster ${id} in the library (removed meanwhile?).`);
  });
  if (use === 'film') checkOneGrid(entries, ids, refuse);
  return entries.sort((a, b) => (a.date ?? '\uffff').localeCompare(b.date ?? '\uffff') || a.id.localeCompare(b.id));
}

function checkOneGrid(entries: readonly LibraryEntry[], ids: readonly string[], refuse: (field: string, reason: string) => never): void {
  const name = (e: LibraryEntry) => e.path.split(/[\\/]/).pop() ?? e.id;
  const first = entries[0]!;
  let common: [number, number, number, number] | null = null;
  entries.forEach((e, i) => {
    const field = `ids[${ids.indexOf(e.id)}]`;
    if (!e.date) refuse(field, `${name(e)} has no date: a film's frames are dated.`);
    if (e.epsg !== first.epsg) refuse(field, `${name(e)} is on ${e.epsg ? `EPSG:${e.epsg}` : 'no CRS'}, ${name(first)} on ${first.epsg ? `EPSG:${first.epsg}` : 'no CRS'}: a film's frames share one grid, so select rasters of one CRS.`);
    if (e.bands.join(',') !== first.bands.join(',')) refuse(field, `${name(e)} has the bands ${e.bands.join(' ')}, ${name(first)} ${first.bands.join(' ')}: a film shows one band list on every frame.`);
    const b = e.bounds4326;
    if (!b) refuse(field, `${name(e)} has no footprint, so it cannot be placed on the film's area.`);
    const next: [number, number, number, number] = common ? [Math.max(common[0], b![0]), Math.max(common[1], b![1]), Math.min(common[2], b![2]), Math.min(common[3], b![3])] : [...b!] as [number, number, number, number];
    if (i > 0 && (next[0] >= next[2] || next[1] >= next[3])) refuse(field, `${name(e)} covers another area than ${i === 1 ? name(first) : 'the rasters before it'}: a film shows one area, so select rasters whose footprints overlap.`);
    common = next;
  });
}
