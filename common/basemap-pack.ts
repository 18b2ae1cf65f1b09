/**
 * The offline basemap's country outlines as the renderer loads them: made
 * planar and projected to Web Mercator at build time (scripts/basemap.ts), so
 * the first frame only reads numbers into geometry. Decoding world-atlas'
 * TopoJSON, splitting it at the antimeridian and projecting it cost about
 * 150 ms of the cold start in Chromium; reading this form costs a few ms.
 *
 * Form: per country [id, name, polygons, deltas]. `polygons` lists each
 * polygon's ring lengths in vertices (outer ring first). `deltas` are the
 * vertices in EPSG:3857 as whole steps of `unit` metres, x and y interleaved,
 * each the difference from the previous vertex (the first from 0,0), so most
 * numbers are short. A 10 m step is far finer than the 1:50m source (0.1 mm
 * on paper is 5 m there).
 */

/** One country: id (ISO 3166 numeric, '' for none), name, each polygon's ring lengths (vertices), delta-coded metres. */
export type PackedCountry = [id: string, name: string, polygons: number[][], deltas: number[]];

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
      return [id, name, polygons.map((poly) => poly.map((ring) => ring.length)), deltas];
    }),
  };
}

export function unpackBasemap(packed: PackedBasemap): UnpackedCountry[] {
  if (packed.version !== 1) throw new Error(`Basemap data version ${String(packed.version)} is not supported.`);
  const { unit } = packed;
  return packed.countries.map(([id, name, polygons, deltas]) => {
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
    return { id, name, flat, endss };
  });
}
