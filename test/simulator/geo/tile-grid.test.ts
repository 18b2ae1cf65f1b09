import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Polygon } from 'geojson';
import proj4 from 'proj4';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { areaKm2, bbox4326, covers, intersect, union, type Polygonal } from '../../../simulator/geo/aoi.js';
import {
  cellByGuid,
  isGuid,
  miniTilesOf,
  parentTileGuid,
  searchTiles,
  type GridCell,
} from '../../../simulator/geo/tile-grid.js';

function rect(x0: number, y0: number, x1: number, y1: number): Polygon {
  return { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] };
}

/** About 100 km x 100 km around Berlin, all in zone 33. */
const BERLIN_100KM = rect(12.7, 52.05, 14.17, 52.95);
/** A concave AOI with a hole, about 25 km across. */
const CONCAVE: Polygon = {
  type: 'Polygon',
  coordinates: [
    [[13.2, 52.4], [13.55, 52.4], [13.55, 52.62], [13.4, 52.5], [13.2, 52.62], [13.2, 52.4]],
    [[13.25, 52.43], [13.25, 52.46], [13.3, 52.46], [13.3, 52.43], [13.25, 52.43]],
  ],
};

function guids(cells: GridCell[]): string[] {
  return cells.map((c) => c.Guid);
}

function overlapKm2(a: Polygonal, b: Polygonal): number {
  const i = intersect(a, b);
  return i ? areaKm2(i) : 0;
}

/** Independent implementation of the GUID layout documented in tile-grid.ts. */
function rawGuid(epsg: number, flags: number, col: number, row: number, subByte: number): string {
  const p = Buffer.from([epsg >> 8, epsg & 0xff, flags, col, row, subByte, 0x5a, 0x77]);
  const c = createHash('sha256').update('swath-tile-grid/v1').update(p).digest().subarray(0, 6);
  const m = createHash('sha256').update('swath-tile-grid/mask').update(c).digest();
  const q = p.map((b, k) => b ^ m[k]!);
  const hex = Buffer.from([...c, 0x81, q[0]!, 0x80 | (c[0]! & 0x3f), ...q.subarray(1)]).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function documentedGuid(epsg: number, mini: boolean, col: number, row: number, subCol = 0, subRow = 0): string {
  return rawGuid(epsg, mini ? 1 : 0, col, row, mini ? (subCol << 4) | subRow : 0);
}

/**
 * For a lattice of points inside the AOI, how many returned cells hold each point: a missing
 * cell shows up as 0 and an overlap as 2, independently of how the search found its cells.
 */
function holdCounts(aoi: Polygonal, cells: GridCell[], steps: number): number[] {
  const boxes = cells.map((c) => bbox4326(c.geometry));
  const [w, s, e, n] = bbox4326(aoi);
  const counts: number[] = [];
  for (let a = 0; a < steps; a++) {
    for (let b = 0; b < steps; b++) {
      // Offsets by irrational fractions keep points off cell edges.
      const p = [w + ((a + 0.5 + Math.SQRT2 / 10) / steps) * (e - w), s + ((b + 0.5 + Math.PI / 100) / steps) * (n - s)];
      if (!booleanPointInPolygon(p, aoi)) continue;
      let k = 0;
      cells.forEach((c, i) => {
        const x = boxes[i]!;
        if (p[0]! >= x[0] && p[0]! <= x[2] && p[1]! >= x[1] && p[1]! <= x[3] && booleanPointInPolygon(p, c.geometry)) k++;
      });
      counts.push(k);
    }
  }
  return counts;
}

describe('tile search basics', () => {
  const tiles = searchTiles(BERLIN_100KM, { miniTiles: false });
  const minis = searchTiles(BERLIN_100KM, { miniTiles: true });

  it('finds tiles and mini-tiles in the expected numbers', () => {
    expect(tiles.truncated).toBe(false);
    expect(minis.truncated).toBe(false);
    // ~100 km square: 3 x 3 tiles when aligned well, at most 4 x 4.
    expect(tiles.cells.length).toBeGreaterThanOrEqual(9);
    expect(tiles.cells.length).toBeLessThanOrEqual(16);
    // ~10,000 km² / 10.24 km² per mini-tile, plus a boundary ring.
    expect(minis.cells.length).toBeGreaterThan(950);
    expect(minis.cells.length).toBeLessThan(1150);
    expect(tiles.cells.every((c) => !c.MiniTile && c.Epsg === 32633)).toBe(true);
    expect(minis.cells.every((c) => c.MiniTile && c.Epsg === 32633)).toBe(true);
  });

  it('uses 51.2 km tiles and 3.2 km mini-tiles aligned to the grid', () => {
    for (const [cells, size] of [[tiles.cells, 51_200], [minis.cells, 3_200]] as const) {
      for (const { utmBounds: b } of cells) {
        expect(b.maxX - b.minX).toBe(size);
        expect(b.maxY - b.minY).toBe(size);
        expect(b.minX % size).toBe(0);
        expect(b.minY % size).toBe(0);
      }
    }
    // An unclipped tile is ~2600 km² on the ground (UTM scale factor makes it not exactly 2621).
    for (const c of tiles.cells) expect(c.areaKm2).toBeGreaterThan(2590);
  });

  it('places footprints where the UTM bounds say', () => {
    const toLonLat = proj4('+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs', 'EPSG:4326');
    for (const c of tiles.cells) {
      const [lon, lat] = toLonLat.forward([c.utmBounds.minX, c.utmBounds.minY]);
      const ring = (c.geometry as Polygon).coordinates[0]!;
      expect(ring[0]![0]).toBeCloseTo(lon!, 8);
      expect(ring[0]![1]).toBeCloseTo(lat!, 8);
    }
  });

  it('exposes DataGeogWkt as the lon/lat footprint with densified edges', () => {
    const c = tiles.cells[0]!;
    expect(c.DataGeogWkt).toMatch(/^POLYGON \(\(/);
    const ring = (c.geometry as Polygon).coordinates[0]!;
    expect(ring.length).toBe(16 * 4 + 1);
    expect(c.DataGeogWkt.split(',')).toHaveLength(ring.length);
  });

  it('returns only cells that share area with the AOI', () => {
    for (const c of tiles.cells) expect(overlapKm2(c.geometry, BERLIN_100KM)).toBeGreaterThan(1e-6);
    for (const c of minis.cells.filter((_, k) => k % 7 === 0)) {
      expect(overlapKm2(c.geometry, BERLIN_100KM)).toBeGreaterThan(1e-6);
    }
  });

  it('covers the AOI with the union of the returned tiles', () => {
    const u = union(tiles.cells.map((c) => c.geometry))!;
    expect(covers(u, BERLIN_100KM)).toBe(true);
  });

  it('covers a concave AOI with a hole with mini-tiles, and skips the hole-only cells', () => {
    const r = searchTiles(CONCAVE, { miniTiles: true });
    const u = union(r.cells.map((c) => c.geometry))!;
    expect(covers(u, CONCAVE)).toBe(true);
    for (const c of r.cells) expect(overlapKm2(c.geometry, CONCAVE)).toBeGreaterThan(1e-6);
    // The notch between the two "horns" is outside the AOI: mini-tiles wholly inside it are
    // found for the AOI's bounding box but not for the AOI.
    const notch = rect(13.33, 52.56, 13.47, 52.62);
    const inNotch = (cells: GridCell[]): GridCell[] => cells.filter((c) => covers(notch, c.geometry));
    expect(inNotch(searchTiles(rect(13.2, 52.4, 13.55, 52.62), { miniTiles: true }).cells).length).toBeGreaterThan(0);
    expect(inNotch(r.cells)).toEqual([]);
  });

  it('returns exactly the cells whose exact overlap with the AOI is positive', () => {
    const multi: Polygonal = {
      type: 'MultiPolygon',
      coordinates: [CONCAVE.coordinates, [[[13.6, 52.45], [13.7, 52.41], [13.66, 52.52], [13.6, 52.45]]]],
    };
    for (const aoi of [CONCAVE, multi]) {
      const [w, s, e, n] = bbox4326(aoi);
      const superset = searchTiles(rect(w - 0.05, s - 0.05, e + 0.05, n + 0.05), { miniTiles: true }).cells;
      const expected = superset.filter((c) => overlapKm2(c.geometry, aoi) > 1e-6).map((c) => c.Guid);
      expect(expected.length).toBeLessThan(superset.length);
      expect(guids(searchTiles(aoi, { miniTiles: true }).cells).sort()).toEqual(expected.sort());
    }
  });

  it('holds every point of a large two-zone AOI in exactly one tile', () => {
    const aoi = rect(3, 44, 13, 50); // ~800 km x 670 km over zones 31-33
    const r = searchTiles(aoi, { miniTiles: false });
    expect(new Set(r.cells.map((c) => c.Epsg))).toEqual(new Set([32631, 32632, 32633]));
    const counts = holdCounts(aoi, r.cells, 160);
    expect(counts.length).toBeGreaterThan(20000);
    expect(counts.filter((k) => k !== 1)).toEqual([]);
  });

  it('holds every point of a 100 km AOI in exactly one mini-tile', () => {
    const counts = holdCounts(BERLIN_100KM, minis.cells, 130);
    expect(counts.length).toBeGreaterThan(15000);
    expect(counts.filter((k) => k !== 1)).toEqual([]);
  });

  it('finds the tiles around tiny AOIs on tile corners and edges', () => {
    const d = 0.0003; // ~30 m
    for (const tile of [tiles.cells[0]!, tiles.cells[4]!]) {
      const ring = (tile.geometry as Polygon).coordinates[0]!;
      for (const k of [0, 8, 16, 24, 32, 40, 48, 56]) {
        const [x, y] = ring[k]!;
        const aoi = rect(x! - d, y! - d, x! + d, y! + d);
        const found = searchTiles(aoi, { miniTiles: false }).cells;
        expect(guids(found)).toContain(tile.Guid);
        // A corner is shared by 4 tiles, an edge point by 2.
        expect(found).toHaveLength(k % 16 === 0 ? 4 : 2);
        expect(holdCounts(aoi, found, 8).filter((n) => n !== 1)).toEqual([]);
      }
    }
  });

  it('does not overlap: the area sum equals the union area and neighbours share edges', () => {
    const sum = tiles.cells.reduce((s, c) => s + c.areaKm2, 0);
    const u = union(tiles.cells.map((c) => c.geometry))!;
    expect(Math.abs(sum - areaKm2(u)) / sum).toBeLessThan(1e-6);
    for (let a = 0; a < tiles.cells.length; a++) {
      for (let b = a + 1; b < tiles.cells.length; b++) {
        expect(overlapKm2(tiles.cells[a]!.geometry, tiles.cells[b]!.geometry)).toBeLessThan(1e-6);
      }
    }
    const small = searchTiles(rect(13.3, 52.4, 13.45, 52.5), { miniTiles: true }).cells;
    const msum = small.reduce((s, c) => s + c.areaKm2, 0);
    expect(Math.abs(msum - areaKm2(union(small.map((c) => c.geometry))!)) / msum).toBeLessThan(1e-6);
  });

  it('leaves out neighbours that only touch the AOI along an edge', () => {
    const tile = tiles.cells[4]!;
    expect(guids(searchTiles(tile.geometry, { miniTiles: false }).cells)).toEqual([tile.Guid]);
    const inside = searchTiles(tile.geometry, { miniTiles: true }).cells;
    expect(inside).toHaveLength(256);
    expect(new Set(inside.map((m) => parentTileGuid(m.Guid)))).toEqual(new Set([tile.Guid]));
  });

  it('sorts deterministically: north to south, then west to east', () => {
    const keys = tiles.cells.map((c) => [-c.utmBounds.minY, c.utmBounds.minX] as const);
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(keys).toEqual(sorted);
  });

  it('finds nothing for an AOI outside the UTM latitudes', () => {
    expect(searchTiles(rect(10, 85, 11, 86), { miniTiles: false })).toEqual({ cells: [], truncated: false });
  });
});

describe('GUIDs', () => {
  const cells = searchTiles(rect(13.3, 52.4, 13.45, 52.5), { miniTiles: true }).cells;
  const tiles = searchTiles(rect(13.3, 52.4, 13.45, 52.5), { miniTiles: false }).cells;

  it('are standard lowercase version-8 GUIDs and unique', () => {
    for (const c of [...cells, ...tiles]) {
      expect(c.Guid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(isGuid(c.Guid)).toBe(true);
    }
    expect(new Set(guids([...cells, ...tiles])).size).toBe(cells.length + tiles.length);
  });

  it('round-trip: cellByGuid returns the same cell as the search', () => {
    for (const c of [...tiles, ...cells.slice(0, 40)]) expect(cellByGuid(c.Guid)).toEqual(c);
    expect(cellByGuid(tiles[0]!.Guid.toUpperCase())).toEqual(tiles[0]);
  });

  it('are stable across searches', () => {
    const again = searchTiles(rect(13.3, 52.4, 13.45, 52.5), { miniTiles: true }).cells;
    expect(guids(again)).toEqual(guids(cells));
    // A different AOI that includes the same ground returns the same GUIDs for it.
    const wider = new Set(guids(searchTiles(rect(13.2, 52.3, 13.5, 52.6), { miniTiles: true }).cells));
    for (const g of guids(cells)) expect(wider.has(g)).toBe(true);
  });

  it('follow the documented encoding', () => {
    const t = tiles[0]!;
    const expected = documentedGuid(t.Epsg, false, t.utmBounds.minX / 51_200, t.utmBounds.minY / 51_200);
    expect(t.Guid).toBe(expected);
    const m = cells[0]!;
    const col = Math.floor(m.utmBounds.minX / 51_200);
    const row = Math.floor(m.utmBounds.minY / 51_200);
    const subCol = (m.utmBounds.minX - col * 51_200) / 3_200;
    const subRow = (m.utmBounds.minY - row * 51_200) / 3_200;
    expect(m.Guid).toBe(documentedGuid(m.Epsg, true, col, row, subCol, subRow));
  });

  it('rejects every single-digit tampering', () => {
    const g = cells[3]!.Guid;
    for (let k = 0; k < g.length; k++) {
      if (g[k] === '-') continue;
      const digit = ((parseInt(g[k]!, 16) + 1) % 16).toString(16);
      const tampered = g.slice(0, k) + digit + g.slice(k + 1);
      expect(isGuid(tampered)).toBe(true);
      expect(cellByGuid(tampered), tampered).toBeUndefined();
    }
  });

  it('rejects random, malformed and well-formed-but-nonexistent GUIDs', () => {
    for (let k = 0; k < 50; k++) expect(cellByGuid(randomUUID())).toBeUndefined();
    expect(cellByGuid('00000000-0000-0000-0000-000000000000')).toBeUndefined();
    expect(cellByGuid('not-a-guid')).toBeUndefined();
    expect(isGuid('not-a-guid')).toBe(false);
    expect(isGuid(`{${randomUUID()}}`)).toBe(false);
    expect(isGuid(randomUUID().replace(/-/g, ''))).toBe(false);
    // Valid checksum, but easting 0-51 km lies outside zone 33 at 52°N: no such tile.
    const outside = documentedGuid(32633, false, 0, 114);
    expect(isGuid(outside)).toBe(true);
    expect(cellByGuid(outside)).toBeUndefined();
    // Valid checksums around an existing tile, but with fields that cannot occur.
    const t = tiles[0]!;
    const [col, row] = [t.utmBounds.minX / 51_200, t.utmBounds.minY / 51_200];
    expect(cellByGuid(rawGuid(t.Epsg, 0, col, row, 0))).toEqual(t);
    expect(cellByGuid(rawGuid(t.Epsg, 0, col, row, 0x21))).toBeUndefined(); // tile with a sub-position
    expect(cellByGuid(rawGuid(t.Epsg, 2, col, row, 0))).toBeUndefined(); // unknown flag
    expect(cellByGuid(rawGuid(32661, 0, col, row, 0))).toBeUndefined(); // no zone 61
    expect(cellByGuid(rawGuid(4326, 0, col, row, 0))).toBeUndefined(); // not a UTM grid
  });
});

describe('mini-tiles nest in tiles', () => {
  const minis = searchTiles(rect(13.3, 52.4, 13.45, 52.5), { miniTiles: true }).cells;

  it('each mini-tile lies inside its parent tile, in UTM and on the ground', () => {
    for (const m of minis) {
      const parent = cellByGuid(parentTileGuid(m.Guid)!)!;
      expect(parent.MiniTile).toBe(false);
      expect(parent.Epsg).toBe(m.Epsg);
      expect(m.utmBounds.minX).toBeGreaterThanOrEqual(parent.utmBounds.minX);
      expect(m.utmBounds.maxX).toBeLessThanOrEqual(parent.utmBounds.maxX);
      expect(m.utmBounds.minY).toBeGreaterThanOrEqual(parent.utmBounds.minY);
      expect(m.utmBounds.maxY).toBeLessThanOrEqual(parent.utmBounds.maxY);
    }
    const sample = minis.filter((_, k) => k % 5 === 0);
    for (const m of sample) expect(covers(cellByGuid(parentTileGuid(m.Guid)!)!.geometry, m.geometry)).toBe(true);
  });

  it('the 256 mini-tiles of a tile add up to the tile', () => {
    const tileGuid = parentTileGuid(minis[0]!.Guid)!;
    const tile = cellByGuid(tileGuid)!;
    const all = miniTilesOf(tileGuid)!;
    expect(all).toHaveLength(256);
    expect(all.every((m) => parentTileGuid(m.Guid) === tileGuid)).toBe(true);
    const sum = all.reduce((s, m) => s + m.areaKm2, 0);
    expect(Math.abs(sum - tile.areaKm2) / tile.areaKm2).toBeLessThan(1e-9);
    expect(parentTileGuid(tileGuid)).toBeUndefined();
    expect(miniTilesOf(minis[0]!.Guid)).toBeUndefined();
  });
});

describe('zones and hemispheres', () => {
  it('returns cells of both zones for an AOI across a zone boundary, cut at 12°E', () => {
    const aoi = rect(11.8, 50.0, 12.2, 50.2);
    const { cells } = searchTiles(aoi, { miniTiles: false });
    expect(new Set(cells.map((c) => c.Epsg))).toEqual(new Set([32632, 32633]));
    for (const c of cells) {
      const [w, , e] = bbox4326(c.geometry);
      if (c.Epsg === 32632) expect(e).toBeLessThanOrEqual(12);
      else expect(w).toBeGreaterThanOrEqual(12);
    }
    // Clipped edge tiles are smaller than a full tile.
    expect(cells.some((c) => c.areaKm2 < 2500)).toBe(true);
    expect(covers(union(cells.map((c) => c.geometry))!, aoi)).toBe(true);
    for (const c of cells) expect(cellByGuid(c.Guid)).toEqual(c);

    const minis = searchTiles(aoi, { miniTiles: true }).cells;
    expect(new Set(minis.map((c) => c.Epsg))).toEqual(new Set([32632, 32633]));
    const sum = minis.reduce((s, c) => s + c.areaKm2, 0);
    const u = union(minis.map((c) => c.geometry))!;
    expect(covers(u, aoi)).toBe(true);
    expect(Math.abs(sum - areaKm2(u)) / sum).toBeLessThan(1e-6);
  });

  it('uses 327xx in the southern hemisphere (Sydney)', () => {
    const aoi = rect(151.0, -34.0, 151.3, -33.8);
    const { cells } = searchTiles(aoi, { miniTiles: false });
    expect(cells.length).toBeGreaterThan(0);
    expect(new Set(cells.map((c) => c.Epsg))).toEqual(new Set([32756]));
    // Southern northings include the 10,000,000 m false northing.
    for (const c of cells) expect(c.utmBounds.minY).toBeGreaterThan(6_000_000);
    expect(covers(union(cells.map((c) => c.geometry))!, aoi)).toBe(true);
  });

  it('splits an AOI across the equator between 326xx and 327xx grids', () => {
    const aoi = rect(14.9, -0.2, 15.1, 0.2);
    const { cells } = searchTiles(aoi, { miniTiles: true });
    expect(new Set(cells.map((c) => c.Epsg))).toEqual(new Set([32633, 32733]));
    for (const c of cells) {
      const [, s, , n] = bbox4326(c.geometry);
      if (c.Epsg === 32633) expect(s).toBeGreaterThanOrEqual(0);
      else expect(n).toBeLessThanOrEqual(0);
    }
    const u = union(cells.map((c) => c.geometry))!;
    expect(covers(u, aoi)).toBe(true);
  });

  it('keeps footprints compact near the antimeridian at high latitude', () => {
    // Squares of zone 58 far east of its central meridian reach past 180°; they must be clipped
    // away, not wrapped into a polygon spanning the globe.
    const aoi = rect(164, 78.5, 168, 79.5);
    const { cells } = searchTiles(aoi, { miniTiles: false });
    expect(new Set(cells.map((c) => c.Epsg))).toEqual(new Set([32658]));
    for (const c of cells) {
      const [w, , e] = bbox4326(c.geometry);
      expect(w).toBeGreaterThanOrEqual(162);
      expect(e).toBeLessThanOrEqual(168);
      expect(c.areaKm2).toBeLessThan(2640);
    }
    const u = union(cells.map((c) => c.geometry))!;
    expect(covers(u, aoi)).toBe(true);
    const sum = cells.reduce((t, c) => t + c.areaKm2, 0);
    expect(Math.abs(sum - areaKm2(u)) / sum).toBeLessThan(1e-6);
  });

  it('handles the last zone up to 180°', () => {
    const { cells } = searchTiles(rect(179.6, 10, 180, 10.3), { miniTiles: false });
    expect(new Set(cells.map((c) => c.Epsg))).toEqual(new Set([32660]));
    for (const c of cells) expect(bbox4326(c.geometry)[2]).toBeLessThanOrEqual(180);
  });
});

describe('limit', () => {
  it('truncates deterministically and says so', () => {
    const full = searchTiles(BERLIN_100KM, { miniTiles: true });
    const part = searchTiles(BERLIN_100KM, { miniTiles: true, limit: 10 });
    expect(part.truncated).toBe(true);
    expect(guids(part.cells)).toEqual(guids(full.cells).slice(0, 10));
    const exact = searchTiles(BERLIN_100KM, { miniTiles: true, limit: full.cells.length });
    expect(exact.truncated).toBe(false);
    expect(exact.cells).toHaveLength(full.cells.length);
  });

  it('defaults to 5000', () => {
    const huge = searchTiles(rect(0, 40, 20, 60), { miniTiles: true });
    expect(huge.truncated).toBe(true);
    expect(huge.cells).toHaveLength(5000);
  });

  it('refuses a non-positive limit', () => {
    expect(() => searchTiles(BERLIN_100KM, { miniTiles: false, limit: 0 })).toThrow(RangeError);
    expect(() => searchTiles(BERLIN_100KM, { miniTiles: false, limit: 1.5 })).toThrow(RangeError);
  });
});
