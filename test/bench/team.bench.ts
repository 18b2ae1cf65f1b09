import { randomBytes } from 'node:crypto';
import { TeamCatalog } from '../../main/team/catalog.js';
import type { OwnershipQuery, TeamRasterInput } from '../../main/team/types.js';
import { startPostgres } from '../support/postgres.js';
import { median, percentile, spread, type Figure } from './method.js';

/**
 * The team catalog on a throwaway PostgreSQL 15 + PostGIS 3 cluster (test/support/postgres.ts), migrated by
 * the catalog, seeded with SWATH_BENCH_TEAM_ROWS (default 100,000) rasters in one INSERT … SELECT generate_series:
 * composites on ~1,000 dates, three models, 0.2° footprints spread over Europe, plus tiles. Then, as an analyst:
 *  - team-owned-lookup-ms: the ownership check before a purchase (date, model, footprint covers the area, bands,
 *    resolution, EPSG), median of 60 checks, half of them answered by a row, half not (target ≤ 50 ms);
 *  - team-register-ms: registering one raster (one INSERT … ON CONFLICT, the row read back), median of 60 (≤ 50 ms).
 * Figures are printed, never asserted.
 */

const MODELS = ['sentinel2-l2a', 'landsat-c2l2', 'planetscope'];

function lonLat(i: number): { x: number; y: number } {
  // A deterministic spread over 10°W..30°E, 36°N..60°N.
  return { x: -10 + ((i * 7919) % 4000) / 100, y: 36 + ((i * 104729) % 2400) / 100 };
}

export async function benchTeam(): Promise<Figure[]> {
  const rows = Number(process.env.SWATH_BENCH_TEAM_ROWS ?? 100_000);
  const cluster = await startPostgres();
  const admin = new TeamCatalog(cluster.url(cluster.admin.role), { password: cluster.admin.password });
  const analyst = new TeamCatalog(cluster.url(cluster.analyst.role), { password: cluster.analyst.password });
  try {
    await admin.migrate();
    const t0 = performance.now();
    // The same spread as lonLat(i), in SQL; i % 1000 picks the date, i % 3 the model; every 10th row a tile.
    await cluster.sql([
      `INSERT INTO swath.rasters (sha256, size, kind, image_date, model, constellations, bands, epsg, resolution, data_type,
         footprint, tile_guid, storage_path, acquired_by, acquired_at, cost_eur, request, stac)
       SELECT md5(i::text) || md5((i + 1)::text), 5000000 + i, CASE WHEN i % 10 = 0 THEN 'tile' ELSE 'composite' END,
         date '2024-01-01' + (i % 1000), (ARRAY['${MODELS.join("','")}'])[i % 3 + 1], '{sentinel-2}',
         CASE WHEN i % 2 = 0 THEN '{B02,B03,B04,B08}'::text[] ELSE '{B04,B08}'::text[] END, 32600 + (i % 6) + 30, CASE WHEN i % 4 = 0 THEN 20 ELSE 10 END, 'UInt16',
         ST_Multi(ST_MakeEnvelope(x, y, x + 0.2, y + 0.2, 4326)), CASE WHEN i % 10 = 0 THEN 'T' || i END,
         'team/' || to_char(date '2024-01-01' + (i % 1000), 'YYYY/MM/DD') || '/' || i || '.tif', 'Analyst ' || (i % 7),
         timestamptz '2024-01-01' + i * interval '10 minutes', 12.5, json_build_object('model', 'm', 'i', i),
         json_build_object('type', 'Feature', 'stac_version', '1.0.0', 'id', 'r' || i, 'properties', json_build_object('datetime', '2024-01-01T00:00:00Z'))
       FROM generate_series(1, ${rows}) AS i
       CROSS JOIN LATERAL (SELECT -10 + ((i::bigint * 7919) % 4000) / 100.0 AS x, 36 + ((i::bigint * 104729) % 2400) / 100.0 AS y) p`,
      'ANALYZE swath.rasters',
    ]);
    const seedMs = performance.now() - t0;

    const query = (k: number): OwnershipQuery => {
      // Even k: inside row i's footprint on its date and model (a hit); odd k: a date no row of that place has.
      const i = 1 + ((k * 1543) % rows) | 1; // odd rows are composites
      const { x, y } = lonLat(i);
      const date = new Date(Date.UTC(2024, 0, 1) + ((i + (k % 2 ? 500 : 0)) % 1000) * 86_400_000).toISOString().slice(0, 10);
      return {
        kind: 'composite', date, model: MODELS[i % 3]!, tileGuid: null, bands: ['B04', 'B08'], resolution: 10, epsg: 32600 + (i % 6) + 30,
        aoiWkt: `POLYGON((${x + 0.05} ${y + 0.05}, ${x + 0.15} ${y + 0.05}, ${x + 0.15} ${y + 0.15}, ${x + 0.05} ${y + 0.15}, ${x + 0.05} ${y + 0.05}))`,
      };
    };
    for (let k = 0; k < 5; k++) await analyst.findOwned(query(k));
    const lookups: number[] = [];
    let hits = 0;
    for (let k = 0; k < 60; k++) {
      const q = query(k);
      const s = performance.now();
      const found = await analyst.findOwned(q);
      lookups.push(performance.now() - s);
      if (found.length) hits++;
    }

    const input = (): TeamRasterInput => {
      const sha256 = randomBytes(32).toString('hex');
      return {
        sha256, size: 123456, kind: 'composite', date: '2026-10-03', model: MODELS[0]!, constellations: ['sentinel-2'], bands: ['B02', 'B03', 'B04', 'B08'],
        epsg: 32633, resolution: 10, dataType: 'UInt16', footprint: { type: 'Polygon', coordinates: [[[13.4, 52.5], [13.6, 52.5], [13.6, 52.6], [13.4, 52.6], [13.4, 52.5]]] },
        tileGuid: null, storagePath: `team/2026/10/03/${sha256}.tif`, acquiredBy: cluster.analyst.role, acquiredAt: new Date().toISOString(), costEur: 12.5,
        request: { model: MODELS[0], date: '2026-10-03' }, stac: { type: 'Feature', stac_version: '1.0.0', id: sha256.slice(0, 12), properties: {} },
      };
    };
    for (let k = 0; k < 5; k++) await analyst.register(input());
    const registers: number[] = [];
    for (let k = 0; k < 60; k++) {
      const one = input();
      const s = performance.now();
      await analyst.register(one);
      registers.push(performance.now() - s);
    }
    return [
      {
        name: 'team-owned-lookup-ms', value: +median(lookups).toFixed(2), unit: 'ms',
        note: `ownership check at ${rows} catalog rows (loopback PostgreSQL 15 + PostGIS 3), median of 60: ${spread(lookups)}, p95 ${percentile(lookups, 95).toFixed(2)}; ${hits} answered by a row; seeded in ${(seedMs / 1000).toFixed(1)} s; target ≤ 50 ms`,
      },
      {
        name: 'team-register-ms', value: +median(registers).toFixed(2), unit: 'ms',
        note: `registering one raster (INSERT … ON CONFLICT, row read back), median of 60: ${spread(registers)}, p95 ${percentile(registers, 95).toFixed(2)}; target ≤ 50 ms`,
      },
    ];
  } finally {
    await Promise.all([admin.close(), analyst.close()]);
    await cluster.close();
  }
}
