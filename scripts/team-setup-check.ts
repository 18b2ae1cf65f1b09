/**
 * `npm run team:setup-check -- <superuser url> [--database swath_team] [--ca ca.pem]`: takes the IT guide's steps for
 * setting up the team library ("Team library: setting it up (IT)") against a server, in order, then checks that they
 * gave what the app needs:
 *   1. as a superuser: the admin role, the analysts' group role, the catalog database owned by the admin, PostGIS;
 *   2. as the admin: the migrations (`npm run team:migrate`);
 *   3. as a superuser: one analyst's role in the group;
 *   4. as that analyst: the catalog answers (schema version), a raster registers and is found, a purchase is claimed
 *      and released; the analyst may not change the schema or delete rasters; QGIS's `geometry_columns` lists the layer.
 * The superuser's password comes from PGPASSWORD or the URL; the admin's and the analyst's from SWATH_ADMIN_PASSWORD and
 * SWATH_ANALYST_PASSWORD (random when unset: set them later with ALTER ROLE). Exits 1 at the first step that fails.
 * CI runs it against a throwaway cluster (test/build/team-setup-check.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { TeamCatalog } from '../main/team/catalog.js';
import { connectionConfig } from '../main/team/connection.js';
import { analystStep, databaseSteps, runAs } from './team-setup.js';
import { migrateCommand } from './team-migrate.js';

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

export async function setupCheck(args: string[], env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<number> {
  const url = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  if (!url) {
    print('usage: npm run team:setup-check -- postgres://<superuser>@<host>:<port>/postgres[?sslmode=verify-full] [--database swath_team] [--admin swath_admin] [--analyst swath_check] [--ca ca.pem]');
    return 2;
  }
  const database = option(args, '--database') ?? 'swath_team';
  const adminRole = option(args, '--admin') ?? 'swath_admin';
  const analystRole = option(args, '--analyst') ?? 'swath_check';
  const caFile = option(args, '--ca');
  const caPem = caFile ? readFileSync(caFile, 'utf8') : null;
  const adminPassword = env.SWATH_ADMIN_PASSWORD || randomBytes(18).toString('base64url');
  const analystPassword = env.SWATH_ANALYST_PASSWORD || randomBytes(18).toString('base64url');
  const su = connectionConfig(url, { password: env.PGPASSWORD ?? null }, { caPem });
  const server = { host: su.config.host!, port: su.config.port!, user: su.config.user!, password: su.password, ssl: su.config.ssl };
  const u = new URL(url);
  const urlOf = (role: string) => {
    const v = new URL(u.toString());
    v.username = encodeURIComponent(role);
    v.password = '';
    v.pathname = `/${encodeURIComponent(database)}`;
    return v.toString();
  };
  let step = '';
  const ok = (what: string) => print(`ok   ${what}`);
  try {
    step = '1. admin role, analysts\' group, database, PostGIS (superuser)';
    const steps = databaseSteps({ database, adminRole, adminPassword });
    await runAs(server, su.config.database!, steps.filter((s) => s.database === 'maintenance').map((s) => s.sql));
    await runAs(server, database, steps.filter((s) => s.database === 'catalog').map((s) => s.sql));
    ok(step);

    step = '2. migrations (admin role): npm run team:migrate';
    const lines: string[] = [];
    const code = await migrateCommand([urlOf(adminRole), ...(caFile ? ['--ca', caFile] : [])], { PGPASSWORD: adminPassword }, (l) => lines.push(l));
    for (const l of lines) print(`     ${l}`);
    if (code !== 0) throw new Error('the migrations failed');
    ok(step);

    step = `3. analyst role ${analystRole} in the analysts' group (superuser)`;
    await runAs(server, su.config.database!, [analystStep({ role: analystRole, password: analystPassword })]);
    ok(step);

    step = `4. the analyst ${analystRole} uses the catalog`;
    const catalog = new TeamCatalog(urlOf(analystRole), { password: analystPassword }, { caPem });
    try {
      await catalog.check();
      const sha256 = randomBytes(32).toString('hex');
      const { raster } = await catalog.register({
        sha256, size: 1, kind: 'composite', date: '2000-01-01', model: 'setup-check', constellations: [], bands: ['B04'], epsg: 4326,
        resolution: 10, dataType: 'UInt16', footprint: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] },
        tileGuid: null, storagePath: `setup-check/${sha256}.tif`, acquiredBy: analystRole, acquiredAt: new Date().toISOString(),
        costEur: 0, request: null, stac: null,
      });
      const found = await catalog.findOwned({ kind: 'composite', date: '2000-01-01', model: 'setup-check', aoiWkt: 'POLYGON((0.1 0.1, 0.9 0.1, 0.9 0.9, 0.1 0.9, 0.1 0.1))', tileGuid: null, bands: ['B04'], resolution: 10, epsg: 4326 });
      if (!found.some((m) => m.raster.id === raster.id && m.exact)) throw new Error('the raster it registered was not found');
      const claim = await catalog.claim(`setup-check:${sha256}`, analystRole, 60_000);
      if (!claim.mine || !(await catalog.release(claim.key, analystRole))) throw new Error('the purchase claim was not granted and released');
    } finally {
      await catalog.close();
    }
    ok(`${step}: registers, finds, claims`);

    step = `5. the analyst ${analystRole} may not change the schema, delete rasters or add one in another's name; QGIS sees the layer`;
    const client = new pg.Client({ ...connectionConfig(urlOf(analystRole), { password: analystPassword }, { caPem }).config });
    await client.connect();
    try {
      const otherBuyer = `INSERT INTO swath.rasters (sha256, size, storage_path, acquired_by, acquired_at) VALUES ('${'0'.repeat(64)}', 1, 'setup-check/other.tif', 'someone else', now())`;
      for (const sql of ['ALTER TABLE swath.rasters ADD COLUMN setup_check int', 'DELETE FROM swath.rasters', 'DROP TABLE swath.purchase_claims', otherBuyer]) {
        const refused = await client.query(sql).then(() => false, (e: { code?: string }) => e.code === '42501');
        if (!refused) throw new Error(`the analyst could run: ${sql}`);
      }
      const layer = await client.query("SELECT type, srid FROM geometry_columns WHERE f_table_schema = 'swath' AND f_table_name = 'rasters' AND f_geometry_column = 'footprint'");
      if (layer.rows[0]?.type !== 'MULTIPOLYGON' || layer.rows[0]?.srid !== 4326) throw new Error('geometry_columns does not list swath.rasters.footprint as MultiPolygon, EPSG:4326');
    } finally {
      await client.end();
    }
    ok(step);
    print(`The team library's catalog at ${u.hostname}:${u.port || 5432}/${database} is set up as the IT guide says.`);
    return 0;
  } catch (e) {
    print(`FAIL ${step}: ${(e as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  setupCheck(process.argv.slice(2), process.env, (l) => console.log(l)).then((code) => process.exit(code), (e: unknown) => {
    console.error((e as Error).message);
    process.exit(1);
  });
}
