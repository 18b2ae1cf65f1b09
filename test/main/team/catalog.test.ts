/**
 * The team catalog against a real PostgreSQL 15 + PostGIS 3 server: a throwaway cluster (test/support/postgres.ts) set
 * up with the IT guide's steps, migrated by the catalog itself with the admin role, used with an analyst's role.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TeamCatalog, TeamCatalogError } from '../../../main/team/catalog.js';
import { connectionConfig } from '../../../main/team/connection.js';
import { SCHEMA_VERSION } from '../../../main/team/migrations.js';
import type { OwnershipQuery, TeamRasterInput, TeamStatus } from '../../../main/team/types.js';
import { postgresAvailable, startPostgres, type TestCluster } from '../../support/postgres.js';

const IN_CI = Boolean(process.env.CI);
if (!postgresAvailable() && !IN_CI) console.warn('[team catalog] skipping: PostgreSQL 15 is not installed (apt-get install postgresql-15 postgresql-15-postgis-3)');
const describeReal = describe.skipIf(!postgresAvailable() && !IN_CI);

const sha = () => randomBytes(32).toString('hex');

/** A composite over lon 0..1, lat 0..1 on 2026-10-03. */
function composite(over: Partial<TeamRasterInput> = {}): TeamRasterInput {
  const sha256 = sha();
  return {
    sha256,
    size: 1234,
    kind: 'composite',
    date: '2026-10-03',
    model: 'sentinel2-l2a',
    constellations: ['sentinel-2'],
    bands: ['B02', 'B03', 'B04', 'B08'],
    epsg: 32631,
    resolution: 10,
    dataType: 'UInt16',
    footprint: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] },
    tileGuid: null,
    storagePath: `2026/10/03/${sha256.slice(0, 8)}.tif`,
    acquiredBy: 'alice',
    acquiredAt: '2026-10-03T09:00:00.000Z',
    costEur: 12.5,
    request: { model: 'sentinel2-l2a', date: '2026-10-03' },
    stac: { type: 'Feature', stac_version: '1.0.0', id: sha256.slice(0, 12), properties: {} },
    ...over,
  };
}

const AOI_INSIDE = 'POLYGON((0.2 0.2, 0.8 0.2, 0.8 0.8, 0.2 0.8, 0.2 0.2))';
const AOI_OVERLAPPING = 'POLYGON((0.5 0.5, 1.5 0.5, 1.5 1.5, 0.5 1.5, 0.5 0.5))';

describeReal('the team catalog on PostgreSQL/PostGIS', () => {
  let cluster: TestCluster;
  let admin: TeamCatalog;
  let alice: TeamCatalog;
  let bob: TeamCatalog;
  const catalogs: TeamCatalog[] = [];
  const open = (role: { role: string; password: string }, query?: string, options: ConstructorParameters<typeof TeamCatalog>[2] = {}) => {
    const c = new TeamCatalog(cluster.url(role.role, query), { password: role.password }, options);
    catalogs.push(c);
    return c;
  };

  // The first test meets the catalog before its migrations; every other one migrates first (a no-op after the first
  // time), so that each also runs alone (-t).
  beforeAll(async () => {
    cluster = await startPostgres();
    await cluster.sql(["CREATE ROLE bob LOGIN PASSWORD 'bob-password' IN ROLE swath_analyst"], 'postgres');
    admin = open(cluster.admin);
    alice = open(cluster.analyst);
    bob = open({ role: 'bob', password: 'bob-password' });
  });
  afterAll(async () => {
    await Promise.all(catalogs.map((c) => c.close().catch(() => undefined)));
    await cluster?.close();
  });

  it('refuses a catalog that has no schema yet, naming the command that applies it', async () => {
    const error = await alice.check().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TeamCatalogError);
    expect((error as Error).message).toMatch(/has no Swath schema yet: IT applies it with `npm run team:migrate -- <url>`/);
    expect(alice.status().state).toBe('online');
  });

  it('migrates once; a second migrate is a no-op; the rasters table is a PostGIS layer', async () => {
    const first = await admin.migrate();
    expect(first).toEqual({ from: 0, to: SCHEMA_VERSION, applied: [expect.stringMatching(/^1: rasters/), expect.stringMatching(/^2: analysts add rows and claims only in their own name/)] });
    const again = await admin.migrate();
    expect(again).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION, applied: [] });
    const client = new pg.Client({ host: cluster.host, port: cluster.port, user: cluster.analyst.role, password: cluster.analyst.password, database: cluster.database });
    await client.connect();
    try {
      // What QGIS lists: one geometry column, MultiPolygon in EPSG:4326.
      const layers = await client.query("SELECT f_table_schema, f_table_name, f_geometry_column, type, srid FROM geometry_columns WHERE f_table_schema = 'swath'");
      expect(layers.rows).toEqual([{ f_table_schema: 'swath', f_table_name: 'rasters', f_geometry_column: 'footprint', type: 'MULTIPOLYGON', srid: 4326 }]);
      const versions = await client.query('SELECT version FROM swath.swath_schema ORDER BY version');
      expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }]);
      // Analysts read and add, never change the schema or delete what the team bought.
      await expect(client.query('ALTER TABLE swath.rasters ADD COLUMN x int')).rejects.toMatchObject({ code: '42501' });
      await expect(client.query('DELETE FROM swath.rasters')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.end();
    }
    await alice.check();
  });

  it('refuses a catalog whose schema is newer than this app knows', async () => {
    await admin.migrate();
    await cluster.sql([`INSERT INTO swath.swath_schema (version, description) VALUES (${SCHEMA_VERSION + 1}, 'from the future')`]);
    try {
      const fresh = open(cluster.analyst);
      await expect(fresh.check()).rejects.toThrow(`schema is at version ${SCHEMA_VERSION + 1}, newer than this version of Swath knows (${SCHEMA_VERSION}): update Swath`);
      await expect(admin.migrate()).rejects.toThrow(/newer than this version of Swath knows/);
    } finally {
      await cluster.sql([`DELETE FROM swath.swath_schema WHERE version = ${SCHEMA_VERSION + 1}`]);
    }
  });

  it('registers a raster once: registering it again returns the same row', async () => {
    await admin.migrate();
    const input = composite();
    const first = await alice.register(input);
    expect(first.created).toBe(true);
    expect(first.raster).toMatchObject({ ...input, footprint: { type: 'MultiPolygon', coordinates: [input.footprint!.coordinates] } });
    expect(first.raster.registeredAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const again = await alice.register(input);
    expect(again).toEqual({ raster: first.raster, created: false });
    // Two analysts registering the same new file at the same moment: one row.
    const twin = composite();
    const both = await Promise.all([alice.register(twin), bob.register({ ...twin, acquiredBy: 'bob' })]);
    expect(both.map((b) => b.created).sort()).toEqual([false, true]);
    expect(both[0].raster.id).toBe(both[1].raster.id);
    // Validated before it is sent, naming the field.
    await expect(alice.register({ ...composite(), storagePath: '../outside.tif' })).rejects.toThrow('The raster cannot be registered: storagePath: it climbs out with "..".');
    await expect(alice.register({ ...composite(), sha256: 'nope' })).rejects.toThrow(/sha256: must be 64 lower-case hex digits/);
  });

  describe('does the team own it? (composites)', () => {
    const day = '2027-01-15';
    const base: Partial<TeamRasterInput> = { date: day, model: 'm-own', acquiredAt: '2027-01-15T10:00:00.000Z' };
    const ask = (over: Partial<OwnershipQuery> = {}): OwnershipQuery => ({
      kind: 'composite', date: day, model: 'm-own', aoiWkt: AOI_INSIDE, tileGuid: null, bands: ['B04', 'B08'], resolution: 10, epsg: 32631, ...over,
    });
    let tenMetre: string;
    let fiveMetre: string;
    let tenMetreOlder: string;

    beforeAll(async () => {
      await admin.migrate();
      tenMetre = (await alice.register(composite(base))).raster.id;
      tenMetreOlder = (await bob.register(composite({ ...base, acquiredBy: 'bob', acquiredAt: '2027-01-15T08:00:00.000Z' }))).raster.id;
      fiveMetre = (await bob.register(composite({ ...base, acquiredBy: 'bob', resolution: 5, acquiredAt: '2027-01-16T08:00:00.000Z' }))).raster.id;
    });

    it('finds what covers the area on the same date and model, best first: finest, then oldest', async () => {
      const found = await alice.findOwned(ask());
      expect(found.map((m) => m.raster.id)).toEqual([fiveMetre, tenMetreOlder, tenMetre]);
      expect(found.every((m) => m.exact && m.differences.length === 0)).toBe(true);
      expect(found[2]!.raster.acquiredBy).toBe('alice');
    });

    it('matches nothing on another date or model', async () => {
      expect(await alice.findOwned(ask({ date: '2027-01-16' }))).toEqual([]);
      expect(await alice.findOwned(ask({ model: 'another-model' }))).toEqual([]);
      expect(await alice.findOwned(ask({ model: null }))).toEqual([]);
      // The service reads model names in any case.
      expect(await alice.findOwned(ask({ model: base.model!.toUpperCase() }))).toHaveLength(3);
    });

    it('names another data type as a difference (Byte is not Int16)', async () => {
      const found = await alice.findOwned(ask({ dataType: 'Byte' }));
      expect(found).toHaveLength(3);
      expect(found[0]).toMatchObject({ exact: false, differences: ['UInt16 pixels instead of Byte'] });
      expect((await alice.findOwned(ask({ dataType: 'uint16' })))[0]).toMatchObject({ exact: true });
    });

    it('matches a footprint that covers the area, not one that only overlaps it', async () => {
      expect(await alice.findOwned(ask({ aoiWkt: AOI_OVERLAPPING }))).toEqual([]);
      expect(await alice.findOwned(ask({ aoiWkt: 'POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))' }))).toHaveLength(3);
    });

    it('needs every band asked for (more is fine)', async () => {
      expect(await alice.findOwned(ask({ bands: ['B04', 'B05'] }))).toEqual([]);
      expect(await alice.findOwned(ask({ bands: ['B02', 'B03', 'B04', 'B08'] }))).toHaveLength(3);
      expect(await alice.findOwned(ask({ bands: [] }))).toHaveLength(3);
    });

    it('refuses a coarser resolution, takes a finer one', async () => {
      expect((await alice.findOwned(ask({ resolution: 5 }))).map((m) => m.raster.id)).toEqual([fiveMetre]);
      expect(await alice.findOwned(ask({ resolution: 2 }))).toEqual([]);
      expect(await alice.findOwned(ask({ resolution: 20 }))).toHaveLength(3);
      expect(await alice.findOwned(ask({ resolution: null }))).toHaveLength(3);
    });

    it('offers a copy in another projection, naming the difference, after the exact ones', async () => {
      const other = (await alice.register(composite({ ...base, epsg: 32632, resolution: 1 }))).raster.id;
      const found = await alice.findOwned(ask());
      expect(found.map((m) => m.raster.id)).toEqual([fiveMetre, tenMetreOlder, tenMetre, other]);
      expect(found[3]).toMatchObject({ exact: false, differences: ['EPSG:32632 instead of EPSG:32631'] });
      expect((await alice.findOwned(ask({ epsg: 32632 })))[0]).toMatchObject({ exact: true, raster: { id: other } });
      expect((await alice.findOwned(ask({ epsg: null }))).every((m) => m.exact)).toBe(true);
    });

    it('refuses a bad area with a clear message, and an aborted check', async () => {
      await expect(alice.findOwned(ask({ aoiWkt: 'POLYGON((0 0, 1 0' }))).rejects.toThrow(/The team catalog refused the request: .*parse error/);
      await expect(alice.findOwned(ask({ aoiWkt: null }))).rejects.toThrow(/aoiWkt: a composite is checked against the request's area/);
      const controller = new AbortController();
      controller.abort();
      await expect(alice.findOwned(ask(), controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    });
  });

  it('matches tiles and mini-tiles by GUID, date and kind', async () => {
    await admin.migrate();
    const tile = (over: Partial<TeamRasterInput>) => composite({ kind: 'tile', tileGuid: 'S2B_T31UFQ_20261003', footprint: null, ...over });
    const t = (await alice.register(tile({}))).raster.id;
    const m = (await alice.register(tile({ kind: 'minitile', bands: ['B04'] }))).raster.id;
    const ask = (over: Partial<OwnershipQuery>): OwnershipQuery => ({
      kind: 'tile', date: '2026-10-03', model: null, aoiWkt: null, tileGuid: 'S2B_T31UFQ_20261003', bands: ['B04'], resolution: null, epsg: null, ...over,
    });
    expect((await alice.findOwned(ask({}))).map((x) => x.raster.id)).toEqual([t]);
    expect((await alice.findOwned(ask({ kind: 'minitile' }))).map((x) => x.raster.id)).toEqual([m]);
    expect(await alice.findOwned(ask({ date: '2026-10-04' }))).toEqual([]);
    expect(await alice.findOwned(ask({ tileGuid: 'S2B_T31UFR_20261003' }))).toEqual([]);
    expect((await alice.findOwned(ask({ kind: 'minitile', bands: ['B04', 'B08'] })))[0]).toMatchObject({ exact: false, differences: ['without band B08'] });
  });

  describe('purchase claims', () => {
    beforeAll(() => admin.migrate());

    it('grants a claim to exactly one of two analysts asking at the same moment', async () => {
      for (let i = 0; i < 10; i++) {
        const key = `composite:2026-10-03:${i}:${sha()}`;
        const [a, b] = await Promise.all([alice.claim(key, 'alice', 60_000), bob.claim(key, 'bob', 60_000)]);
        expect([a.mine, b.mine].filter(Boolean)).toHaveLength(1);
        const winner = a.mine ? a : b;
        const loser = a.mine ? b : a;
        expect(loser).toEqual({ ...winner, mine: false });
        expect(Date.parse(winner.expiresAt)).toBeGreaterThan(Date.now() - 60_000);
      }
    });

    it('lets its holder renew and release it, and a teammate take it once released or expired', async () => {
      const key = `tile:${sha()}`;
      expect((await alice.claim(key, 'alice', 60_000)).mine).toBe(true);
      expect((await alice.claim(key, 'alice', 60_000)).mine).toBe(true);
      expect(await bob.claim(key, 'bob', 60_000)).toMatchObject({ holder: 'alice', mine: false });
      expect(await bob.release(key, 'bob')).toBe(false);
      expect(await alice.release(key, 'alice')).toBe(true);
      expect(await bob.claim(key, 'bob', 60_000)).toMatchObject({ holder: 'bob', mine: true });
      // Bob's app disappears; his claim lapses.
      await cluster.sql([`UPDATE swath.purchase_claims SET expires_at = now() - interval '1 second' WHERE key = '${key}'`]);
      expect(await alice.claim(key, 'alice', 60_000)).toMatchObject({ holder: 'alice', mine: true });
    });
  });

  describe('waiting for a teammate\'s purchase', () => {
    const ask = (date: string): OwnershipQuery => ({ kind: 'composite', date, model: 'm-wait', aoiWkt: AOI_INSIDE, tileGuid: null, bands: ['B04'], resolution: 10, epsg: 32631 });
    beforeAll(() => admin.migrate());

    it('ends with the teammate\'s copy once it is registered', async () => {
      const key = `wait:${sha()}`;
      expect((await alice.claim(key, 'alice', 60_000)).mine).toBe(true);
      const held = await bob.claim(key, 'bob', 60_000);
      expect(held).toMatchObject({ holder: 'alice', mine: false });
      let sawClaim!: () => void;
      const seen = new Promise<void>((resolve) => { sawClaim = resolve; });
      const waiting = bob.waitForPurchase(key, ask('2027-05-01'), { intervalMs: 20, onWaiting: (c) => { expect(c.holder).toBe('alice'); sawClaim(); } });
      await seen;
      const bought = (await alice.register(composite({ date: '2027-05-01', model: 'm-wait' }))).raster;
      await alice.release(key, 'alice');
      const done = await waiting;
      expect(done.matches.map((m) => m.raster.id)).toEqual([bought.id]);
    });

    it('ends without a copy when the claim lapses, and stops when aborted', async () => {
      const key = `wait:${sha()}`;
      await alice.claim(key, 'alice', 60_000);
      const controller = new AbortController();
      const aborted = bob.waitForPurchase(key, ask('2027-05-02'), { intervalMs: 20, signal: controller.signal });
      controller.abort();
      await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
      let sawClaim!: () => void;
      const seen = new Promise<void>((resolve) => { sawClaim = resolve; });
      const waiting = bob.waitForPurchase(key, ask('2027-05-02'), { intervalMs: 20, onWaiting: () => sawClaim() });
      await seen;
      await cluster.sql([`UPDATE swath.purchase_claims SET expires_at = now() - interval '1 second' WHERE key = '${key}'`]);
      expect(await waiting).toEqual({ matches: [], claim: null });
    });
  });

  describe('hostile rows', () => {
    const day = '2027-03-01';
    let good: string;
    const hostile: Record<string, string> = {};

    beforeAll(async () => {
      await admin.migrate();
      good = (await alice.register(composite({ date: day, model: 'm-hostile' }))).raster.id;
      // Written behind the app's back, as the table's owner (an admin, or whoever took over the server).
      const insert = async (name: string, set: string) => {
        const client = new pg.Client({ host: cluster.host, port: cluster.port, user: cluster.admin.role, password: cluster.admin.password, database: cluster.database });
        await client.connect();
        try {
          const r = await client.query(
            `INSERT INTO swath.rasters (sha256, size, kind, image_date, model, bands, epsg, resolution, footprint, storage_path, acquired_by, acquired_at, stac)
             SELECT $1, 1, 'composite', '${day}', 'm-hostile', '{B04,B08}', 32631, 10,
               ST_Multi(ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))', 4326)), 'x/ok.tif', 'Mallory', now(), '{}'::json
             RETURNING id::text`,
            [sha()],
          );
          const id = r.rows[0].id as string;
          await client.query(`UPDATE swath.rasters SET ${set} WHERE id = $1`, [id]);
          hostile[name] = id;
        } finally {
          await client.end();
        }
      };
      await insert('parent', "storage_path = '../../etc/passwd'");
      await insert('absolute', "storage_path = '/etc/passwd'");
      await insert('drive', "storage_path = 'C:/Windows/win.ini'");
      await insert('backslash', "storage_path = 'a\\..\\..\\b.tif'");
      await insert('bigJson', "stac = json_build_object('pad', repeat('x', 2000000))");
      await insert('vertices', 'footprint = ST_Multi(ST_Buffer(ST_SetSRID(ST_Point(0.5, 0.5), 4326), 0.6, 250000))');
      await insert('longBands', "bands = array_fill('B04'::text, ARRAY[100000])");
    });

    it('refuses each with a message naming the row and the reason; the good row still answers', async () => {
      const refusedSeen: string[] = [];
      const watcher = open(cluster.analyst, undefined, { onRefused: (r) => refusedSeen.push(r.message) });
      const answer = await watcher.findOwnedWithRefusals({ kind: 'composite', date: day, model: 'm-hostile', aoiWkt: AOI_INSIDE, tileGuid: null, bands: ['B04'], resolution: 10, epsg: 32631 });
      expect(answer.matches.map((m) => m.raster.id)).toEqual([good]);
      const byId = new Map(answer.refused.map((r) => [r.id, r.message]));
      expect(byId.get(hostile.parent!)).toBe(`Team catalog row ${hostile.parent} refused: storagePath: it climbs out with "..".`);
      expect(byId.get(hostile.absolute!)).toBe(`Team catalog row ${hostile.absolute} refused: storagePath: it is absolute.`);
      expect(byId.get(hostile.drive!)).toBe(`Team catalog row ${hostile.drive} refused: storagePath: it starts with a drive letter.`);
      expect(byId.get(hostile.backslash!)).toMatch(/storagePath: it contains a backslash/);
      expect(byId.get(hostile.bigJson!)).toMatch(new RegExp(`^Team catalog row ${hostile.bigJson} refused: its STAC item is 20000\\d\\d bytes \\(limit 262144\\)\\.$`));
      expect(byId.get(hostile.vertices!)).toBe(`Team catalog row ${hostile.vertices} refused: its footprint has 1000001 vertices (limit 10000).`);
      // The long band list does not contain B04... it does (100,000 times): refused for its length.
      expect(byId.get(hostile.longBands!)).toMatch(/its bands list is too long \(100000 entries\)/);
      expect(answer.refused).toHaveLength(7);
      expect(refusedSeen.sort()).toEqual(answer.refused.map((r) => r.message).sort());
    });

    it('pages through the catalog for the STAC export, refusing the same rows', async () => {
      const seen: string[] = [];
      const refused: string[] = [];
      let after: string | null = null;
      do {
        const page = await alice.list({ limit: 4, after });
        seen.push(...page.rasters.map((r) => r.id));
        refused.push(...page.refused.map((r) => r.id));
        after = page.next;
      } while (after);
      expect(refused.sort()).toEqual(Object.values(hostile).sort());
      expect(seen).toContain(good);
      expect(new Set([...seen, ...refused]).size).toBe(seen.length + refused.length);
      await expect(alice.list({ limit: 0 })).rejects.toThrow('limit: must be a whole number between 1 and 500.');
    });
  });

  describe('credentials and reachability', () => {
    it('never puts the password in an error or the status', async () => {
      const password = cluster.analyst.password;
      // A URL that carries the password (as the migrate command allows), to a database the server names back.
      const statuses: TeamStatus[] = [];
      const wrong = new TeamCatalog(`postgres://alice:${password}@${cluster.host}:${cluster.port}/${password}`, {}, { onStatus: (s) => statuses.push(s) });
      catalogs.push(wrong);
      const error = (await wrong.check().catch((e: unknown) => e)) as TeamCatalogError;
      expect(error).toBeInstanceOf(TeamCatalogError);
      expect(error.message).toMatch(/^The team catalog is unreachable: database "\*\*\*" does not exist/);
      expect(error.message).toContain('***');
      expect(JSON.stringify({ m: error.message, s: error.stack, st: wrong.status(), statuses })).not.toContain(password);

      const badPassword = `pw-${sha()}`;
      const refused = open({ role: cluster.analyst.role, password: badPassword });
      const e2 = (await refused.check().catch((e: unknown) => e)) as TeamCatalogError;
      expect(e2).toMatchObject({ kind: 'auth', unreachable: true });
      expect(e2.message).toMatch(/refused the login: .*password authentication failed for user "alice"/);
      expect(refused.status()).toMatchObject({ state: 'unreachable' });
      expect(JSON.stringify({ m: e2.message, st: refused.status() })).not.toContain(badPassword);
    });

    it('says since when the catalog is unreachable, and is online again once it is back', async () => {
      await admin.migrate();
      const statuses: TeamStatus[] = [];
      const watcher = open(cluster.analyst, undefined, { onStatus: (s) => statuses.push(s) });
      await watcher.check();
      expect(watcher.status().state).toBe('online');
      await cluster.stop();
      try {
        const e = (await watcher.check().catch((x: unknown) => x)) as TeamCatalogError;
        expect(e).toMatchObject({ kind: 'transient', unreachable: true });
        const down = watcher.status();
        expect(down).toMatchObject({ state: 'unreachable', reason: expect.stringMatching(/unreachable/) });
        await expect(watcher.findOwned({ kind: 'tile', date: '2026-10-03', model: null, aoiWkt: null, tileGuid: 'g', bands: [], resolution: null, epsg: null })).rejects.toMatchObject({ unreachable: true });
        // Still the first moment it was found unreachable.
        expect(watcher.status()).toMatchObject({ state: 'unreachable', since: (down as { since: string }).since });
        expect(JSON.stringify(watcher.status())).not.toContain(cluster.analyst.password);
      } finally {
        await cluster.start();
      }
      await watcher.check();
      expect(watcher.status().state).toBe('online');
      expect(statuses.map((s) => s.state)).toEqual(['online', 'unreachable', 'online']);
    });
  });
});

describeReal('the team catalog over TLS', () => {
  let cluster: TestCluster;
  const catalogs: TeamCatalog[] = [];
  beforeAll(async () => {
    cluster = await startPostgres({ tls: true });
  });
  afterAll(async () => {
    await Promise.all(catalogs.map((c) => c.close().catch(() => undefined)));
    await cluster?.close();
  });

  it('refuses a certificate it cannot check and accepts it with the CA (sslmode=verify-full)', async () => {
    const without = new TeamCatalog(cluster.url(cluster.admin.role, 'sslmode=verify-full'), { password: cluster.admin.password });
    const withCa = new TeamCatalog(cluster.url(cluster.admin.role, 'sslmode=verify-full'), { password: cluster.admin.password }, { caPem: cluster.caPem });
    catalogs.push(without, withCa);
    const e = (await without.migrate().catch((x: unknown) => x)) as TeamCatalogError;
    expect(e).toMatchObject({ unreachable: true });
    expect(e.message).toMatch(/TLS certificate was refused \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN)/);
    expect(without.status()).toMatchObject({ state: 'unreachable', reason: expect.stringMatching(/TLS certificate was refused/) });
    expect(await withCa.migrate()).toMatchObject({ to: SCHEMA_VERSION });
    expect(withCa.status().state).toBe('online');
    expect(withCa.where).toMatch(/\(TLS\)$/);
    // The connection is encrypted.
    const client = new pg.Client({ host: cluster.host, port: cluster.port, user: cluster.superuser.role, password: cluster.superuser.password, database: cluster.database });
    await client.connect();
    try {
      const r = await client.query("SELECT count(*)::int AS n FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'swath' AND s.ssl");
      expect(r.rows[0].n).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });

  it('binds the SCRAM exchange to the TLS channel (SCRAM-SHA-256-PLUS), the server offering it', async () => {
    const { config } = connectionConfig(cluster.url(cluster.admin.role, 'sslmode=verify-full'), { password: cluster.admin.password }, { caPem: cluster.caPem });
    const client = new pg.Client(config);
    // Observed on its way to the server: the mechanism the client chose.
    const connection = (client as unknown as { connection: { sendSASLInitialResponseMessage(m: string, r: string): void } }).connection;
    const send = connection.sendSASLInitialResponseMessage.bind(connection);
    const mechanisms: string[] = [];
    connection.sendSASLInitialResponseMessage = (m, r) => {
      mechanisms.push(m);
      send(m, r);
    };
    await client.connect();
    await client.end();
    expect(mechanisms).toEqual(['SCRAM-SHA-256-PLUS']);
  });

  it('refuses sslmode=prefer (it may fall back to plain text)', () => {
    expect(() => new TeamCatalog(cluster.url('alice', 'sslmode=prefer'), { password: 'x' })).toThrow(/sslmode=prefer may fall back to an unencrypted connection/);
  });
});
