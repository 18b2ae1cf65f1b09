/**
 * Teammates are not trusted with one another's rows: with two analysts' roles on a real PostgreSQL/PostGIS
 * (a throwaway cluster migrated by the catalog), the database itself refuses, to raw SQL sent as analyst B, a raster
 * naming another buyer, a claim in another's name, any change to or end of another's live claim, and a claim longer
 * than the server's cap; the app's own calls in each analyst's name still work.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TeamCatalog } from '../../../main/team/catalog.js';
import { teamRasterInputFor } from '../../../main/team/match.js';
import { postgresAvailable, type TestCluster } from '../../support/postgres.js';
import { startTeam, type TestTeam } from '../../support/team.js';
import { entry } from './fixtures.js';

const sha = () => randomBytes(32).toString('hex');

describe.skipIf(!postgresAvailable() && !process.env.CI)('analysts\' rights on the team catalog', () => {
  let team: TestTeam;
  let cluster: TestCluster;
  let alice: TeamCatalog;
  let bob: TeamCatalog;
  /** Raw SQL as analyst B (bob), as a hostile teammate would send it. */
  let asBob: pg.Client;

  beforeAll(async () => {
    team = await startTeam(['bob']);
    cluster = team.cluster;
    alice = new TeamCatalog(cluster.url(cluster.analyst.role), { password: cluster.analyst.password });
    bob = new TeamCatalog(cluster.url('bob'), { password: 'bob-password' });
    asBob = new pg.Client({ host: cluster.host, port: cluster.port, user: 'bob', password: 'bob-password', database: cluster.database });
    await asBob.connect();
  });
  afterAll(async () => {
    await asBob?.end().catch(() => undefined);
    await alice?.close();
    await bob?.close();
    await team?.close();
  });

  const insertRaster = (acquiredBy: string) => asBob.query(
    `INSERT INTO swath.rasters (sha256, size, kind, image_date, model, bands, footprint, storage_path, acquired_by, acquired_at)
     VALUES ($1, 1, 'composite', '2026-10-03', 'Stratus2', '{B4}', ST_Multi(ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))', 4326)), 'composite/2026/x.tif', $2, now())`,
    [sha(), acquiredBy],
  );

  it('refuses a raster row naming another buyer, and takes one in the analyst\'s own name', async () => {
    await expect(insertRaster(cluster.analyst.role)).rejects.toMatchObject({ code: '42501', message: expect.stringMatching(/row-level security/) });
    // SET ROLE does not change who is signed in.
    await expect(asBob.query(`SET ROLE ${cluster.analyst.role}`)).rejects.toMatchObject({ code: '42501' });
    await expect(insertRaster('bob')).resolves.toMatchObject({ rowCount: 1 });
    // Through the app's catalog: refused as invalid (the registration queue parks it), not as a role without rights.
    const input = teamRasterInputFor(entry({ sha256: sha() }), 'composite/2026/x.tif', cluster.analyst.role, 1);
    await expect(bob.register(input)).rejects.toMatchObject({ kind: 'validation', message: expect.stringMatching(/^The team catalog refused the row: new row violates row-level security policy/) });
    await expect(bob.register({ ...input, acquiredBy: 'bob' })).resolves.toMatchObject({ created: true });
  });

  it('refuses a claim in another\'s name, and any change to or end of another\'s live claim', async () => {
    const key = `rights:${sha()}`;
    const held = await alice.claim(key, cluster.analyst.role, 60_000);
    expect(held).toMatchObject({ mine: true, holder: cluster.analyst.role });
    await expect(asBob.query("INSERT INTO swath.purchase_claims (key, holder, expires_at) VALUES ($1, 'alice', now() + interval '1 minute')", [`rights:${sha()}`]))
      .rejects.toMatchObject({ code: '42501' });
    // Not seen by an UPDATE or DELETE of bob's: nothing changes.
    expect((await asBob.query("UPDATE swath.purchase_claims SET holder = 'bob' WHERE key = $1", [key])).rowCount).toBe(0);
    expect((await asBob.query('UPDATE swath.purchase_claims SET expires_at = now() WHERE key = $1', [key])).rowCount).toBe(0);
    expect((await asBob.query('DELETE FROM swath.purchase_claims WHERE key = $1', [key])).rowCount).toBe(0);
    expect((await asBob.query('DELETE FROM swath.purchase_claims')).rowCount).toBe(0);
    // An upsert over it, as the app's claim is written but in bob's name without its condition.
    await expect(asBob.query(
      `INSERT INTO swath.purchase_claims (key, holder, expires_at) VALUES ($1, 'bob', now() + interval '1 minute')
       ON CONFLICT (key) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at`,
      [key],
    )).rejects.toMatchObject({ code: '42501' });
    expect(await bob.standingClaim(key)).toMatchObject({ holder: cluster.analyst.role, expiresAt: held.expiresAt });
    expect(await bob.claim(key, 'bob', 60_000)).toMatchObject({ mine: false, holder: cluster.analyst.role });
    // Once it lapsed, a teammate takes it over; alice then can no longer end it.
    await cluster.sql([`UPDATE swath.purchase_claims SET expires_at = now() - interval '1 second' WHERE key = '${key}'`]);
    expect(await bob.claim(key, 'bob', 60_000)).toMatchObject({ mine: true, holder: 'bob' });
    expect(await alice.release(key, cluster.analyst.role)).toBe(false);
    expect(await bob.release(key, 'bob')).toBe(true);
  });

  it('caps a claim\'s lifetime on the server', async () => {
    const key = `rights:${sha()}`;
    await expect(asBob.query("INSERT INTO swath.purchase_claims (key, holder, expires_at) VALUES ($1, 'bob', now() + interval '2 days')", [key]))
      .rejects.toMatchObject({ code: '23514', message: expect.stringMatching(/at most one day/) });
    await asBob.query("INSERT INTO swath.purchase_claims (key, holder, expires_at) VALUES ($1, 'bob', now() + interval '1 hour')", [key]);
    await expect(asBob.query("UPDATE swath.purchase_claims SET expires_at = now() + interval '30 days' WHERE key = $1", [key]))
      .rejects.toMatchObject({ code: '23514' });
    // claimed_at is the server's, whatever the client sent.
    await asBob.query("UPDATE swath.purchase_claims SET claimed_at = '2000-01-01' WHERE key = $1", [key]);
    const row = await asBob.query('SELECT claimed_at > now() - interval \'1 minute\' AS fresh FROM swath.purchase_claims WHERE key = $1', [key]);
    expect(row.rows).toEqual([{ fresh: true }]);
  });
});
