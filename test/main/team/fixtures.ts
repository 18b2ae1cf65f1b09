/** Library entries and registrations the team library's tests share. */
import type { LibraryEntry } from '../../../main/library/catalog.js';
import { teamRasterInputFor } from '../../../main/team/match.js';
import type { TeamRasterInput } from '../../../main/team/types.js';

export const BERLIN = 'POLYGON((13.30 52.45, 13.50 52.45, 13.50 52.56, 13.30 52.56, 13.30 52.45))';
export const GUID = '3F2504E0-4F89-11D3-9A0C-0305E82C3301';

/** A composite request over Berlin, with `extra` fields. */
export function composite(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { Wkt: BERLIN, Date: '2026-10-03', Model: 'Stratus2', ...extra };
}

/** A downloaded composite of {@link composite} as the library records it. */
export function entry(over: Partial<LibraryEntry> = {}): LibraryEntry {
  return {
    id: 'e1',
    path: '/home/a/Swath/composite_20261003_Stratus2_32633_10m.tif',
    size: 123456,
    sha256: 'a'.repeat(64),
    request: composite({ Bandnames: 'rgb', 'x-api-key': 'SECRET-KEY', Resolution: 10 }),
    kind: 'composite',
    createdAt: '2026-10-03T08:00:00.000Z',
    source: 'download',
    date: '2026-10-03',
    model: 'Stratus2',
    constellations: ['Sentinel2'],
    bands: ['B4', 'B3', 'B2'],
    epsg: 32633,
    resolution: 10,
    width: 1400,
    height: 1230,
    bounds4326: [13.299, 52.449, 13.501, 52.561],
    cog: true,
    ...over,
  };
}

/** The registration of a library raster named `name` (its sha256 from the name) at `alice/<name>.tif`. */
export function registration(name: string, over: Partial<TeamRasterInput> = {}): TeamRasterInput {
  const sha256 = Buffer.from(name).toString('hex').padEnd(64, '0').slice(0, 64);
  return { ...teamRasterInputFor(entry({ sha256 }), `alice/${name}.tif`, 'A. Analyst', 1.5), ...over };
}
