/**
 * The offline basemap's country outlines as the renderer loads them: made
 * planar and projected to Web Mercator at build time (scripts/basemap.ts), so
 * the first frame only reads numbers into geometry. Decoding world-atlas'
 * TopoJSON, splitting it at the antimeridian and projecting it cost about
 * 150 ms of the cold start in Chromium; reading this form costs a few ms.
 *
 * Form: per country [id, name, polygons, deltas, cut]. `polygons` lists each
 * polygon's ring lengths in vertices (outer ring first). `deltas` are the
 * vertices in EPSG:3857 as whole steps of `unit` metres, x and y interleaved,
 * each the difference from the previous vertex (the first from 0,0), so most
 * numbers are short. A 10 m step is far finer than the 1:50m source (0.1 mm
 * on paper is 5 m there). `cut` is 1 for the few countries whose rings run
 * along the antimeridian (see {@link bordersOf}), found at build time so the
 * renderer only traces those.
 */

/** One country: id (ISO 3166 numeric, '' for none), name, each polygon's ring lengths (vertices), delta-coded metres, 1 when cut at the antimeridian. */
export type PackedCountry = [id: string, name: string, polygons: number[][], deltas: number[], cut?: 1];

export interface PackedBasemap {
  version: 1;
  /** Metres per coordinate step. */
  unit: number;
  countries: PackedCountry[];
}

/** A country ready for a planar renderer: flat x,y metres and, per polygon, its rings' end offsets into `flat`. */
export interface UnpackedCountry {
  id: string;
  name: string;
  flat: number[];
  endss: number[][];
  /** Its borders as lines (flat x,y and line end offsets) when a ring runs along the antimeridian cut; see {@link bordersOf}. */
  borders: { flat: number[]; ends: number[] } | null;
}

/** Web Mercator's half width, less a step: a vertex at or past it lies on the antimeridian. */
const SEAM_X = 20037508.342789244 - 10;

/**
 * A country's borders as lines, leaving out the segments that run along the antimeridian: there a
 * polygon was cut in two at build time (one half at each edge of the world), and stroking its rings
 * would draw the cut as a border through Chukotka, Fiji or Antarctica. Null when no ring runs along it.
 */
export function bordersOf(flat: number[], endss: number[][]): { flat: number[]; ends: number[] } | null {
  const out: number[] = [];
  const ends: number[] = [];
  let cut = false;
  let lineStart = 0;
  const endLine = (): void => {
    if (out.length - lineStart >= 4) ends.push(out.length);
    else out.length = lineStart;
    lineStart = out.length;
  };
  let start = 0;
  for (const ringEnds of endss) {
    for (const end of ringEnds) {
      for (let i = start; i + 3 < end; i += 2) {
        const x0 = flat[i]!;
        const x1 = flat[i + 2]!;
        if (Math.abs(x0) >= SEAM_X && Math.abs(x1) >= SEAM_X && (x0 > 0) === (x1 > 0)) {
          cut = true;
          endLine();
          continue;
        }
        if (out.length === lineStart) out.push(x0, flat[i + 1]!);
        out.push(x1, flat[i + 3]!);
      }
      endLine();
      start = end;
    }
  }
  return cut ? { flat: out, ends } : null;
}

/** One input country for {@link packBasemap}: polygons of rings of [x, y] in EPSG:3857 metres. */
export interface PlanarCountry {
  id: string;
  name: string;
  polygons: number[][][][];
}

export function packBasemap(countries: PlanarCountry[], unit = 10): PackedBasemap {
  if (!(unit > 0)) throw new Error('unit: a positive number of metres.');
  return {
    version: 1,
    unit,
    countries: countries.map(({ id, name, polygons }) => {
      const deltas: number[] = [];
      let px = 0;
      let py = 0;
      for (const poly of polygons) for (const ring of poly) for (const [x, y] of ring) {
        const qx = Math.round(x! / unit);
        const qy = Math.round(y! / unit);
        if (!Number.isFinite(qx) || !Number.isFinite(qy)) throw new Error(`${name}: a vertex is not a finite coordinate.`);
        deltas.push(qx - px, qy - py);
        px = qx;
        py = qy;
      }
      const country: PackedCountry = [id, name, polygons.map((poly) => poly.map((ring) => ring.length)), deltas];
      const { flat, endss } = decodeCountry(country, unit);
      if (bordersOf(flat, endss)) country.push(1);
      return country;
    }),
  };
}

/** A packed country's vertices in metres and its rings' end offsets. */
function decodeCountry([, name, polygons, deltas]: PackedCountry, unit: number): { flat: number[]; endss: number[][] } {
  const flat = new Array<number>(deltas.length);
  let x = 0;
  let y = 0;
  for (let i = 0; i < deltas.length; i += 2) {
    x += deltas[i]!;
    y += deltas[i + 1]!;
    flat[i] = x * unit;
    flat[i + 1] = y * unit;
  }
  let end = 0;
  const endss = polygons.map((rings) => rings.map((n) => (end += 2 * n)));
  if (end !== flat.length) throw new Error(`${name}: ring lengths (${end / 2} vertices) do not match the ${flat.length / 2} vertices.`);
  return { flat, endss };
}

export function unpackBasemap(packed: PackedBasemap): UnpackedCountry[] {
  checkBasemapVersion(packed);
  return packed.countries.map((country) => unpackCountry(country, packed.unit));
}

/** Throws for packed data of a version this code does not read. */
export function checkBasemapVersion(packed: PackedBasemap): void {
  if (packed.version !== 1) throw new Error(`Basemap data version ${String(packed.version)} is not supported.`);
}

/** One packed country (of a basemap whose `unit` is given) as planar vertices, its rings and, if cut, its borders. */
export function unpackCountry(country: PackedCountry, unit: number): UnpackedCountry {
  const [id, name, , , cut] = country;
  const { flat, endss } = decodeCountry(country, unit);
  // Only the countries the build found cut are traced: the first frame does not scan every vertex.
  return { id, name, flat, endss, borders: cut === 1 ? bordersOf(flat, endss) : null };
}

/**
 * Named places for the map's offline context (scripts/context.ts packs them, the renderer's
 * map/context-layers.ts reads them), largest first: names joined by newlines, x and y interleaved in
 * whole steps of `unit` metres in EPSG:3857, and each place's population.
 */
export interface PackedPlaces {
  version: 1;
  unit: number;
  names: string;
  xy: number[];
  population: number[];
}
