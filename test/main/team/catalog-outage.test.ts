/**
 * The team catalog going away mid-run: downloads still finish and are copied to the share, their
 * registrations wait in the durable queue while the status says since when the catalog is
 * unreachable, and once the server is back every raster is registered exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyState } from '../../../main/policy';
import { postgresAvailable, startPostgres, type TestCluster } from '../../support/postgres';
import { startTeam, type TestTeam } from '../../support/team';
import { startTestApp, type TestApp } from '../watches/app-helpers';

const AREA = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';

describe.skipIf(!postgresAvailable() && !process.env.CI)('the team catalog going away mid-run', () => {
  let team: TestTeam;
  let cluster: TestCluster;
  let t: TestApp;

  beforeAll(async () => {
    team = await startTeam();
    cluster = team.cluster;
    t = await startTestApp({ distribution: { policy: team.policy } });
    // A wrong password: said at once, without the password.
    const wrong = await t.call('team:set-credentials', { credentials: { role: cluster.analyst.role, password: 'not-the-password-42' } });
    expect(wrong).toMatchObject({ state: 'unreachable', role: cluster.analyst.role });
    expect(JSON.stringify(wrong)).not.toContain('not-the-password-42');
    const status = await t.call('team:set-credentials', { credentials: { role: cluster.analyst.role, password: cluster.analyst.password } });
    expect(status).toMatchObject({ state: 'online', role: cluster.analyst.role, pending: 0 });
  });
  afterAll(async () => {
    await t?.close();
    await team?.close();
  });

  it('queues the registrations while the server is down and registers each raster once when it is back', async () => {
    await expect.poll(async () => (await t.call('team:status')).state, { timeout: 20_000 }).toBe('online');
    const found = await t.call('imagery:search', { request: { Wkt: AREA, From: '2020-01-01', Model: 'Stratus2' } });
    const date = String(found.data.ModelImageDates[0].DatesByGeog[0].Dates.at(-1)).slice(0, 10);
    const request = (Bandnames: string) => ({ Wkt: AREA, Date: date, Model: 'Stratus2', Resolution: 80, EpsgProjection: 32633, Bandnames });

    await cluster.stop();
    // The check before buying cannot be made: the analyst is told, and the purchase still goes on.
    const check = await t.call('team:check', { kind: 'composite', request: request('B4') });
    expect(check).toMatchObject({ state: 'unchecked', reason: expect.stringMatching(/could not be asked/) });
    const jobs = [];
    for (const bands of ['B4', 'B8', 'B4,B8']) jobs.push(await t.call<{ id: string }>('downloads:enqueue', { kind: 'composite', request: request(bands) }));
    await expect.poll(async () => (await t.call('downloads:list')).jobs.map((j: { state: string }) => j.state), { timeout: 60_000 }).toEqual(['done', 'done', 'done']);
    // Copied to the share, waiting in the queue; the status says since when the catalog is gone.
    await expect.poll(async () => (await t.call('team:status')).pending, { timeout: 30_000 }).toBe(3);
    const down = await t.call('team:status');
    expect(down).toMatchObject({ state: 'unreachable', since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(JSON.stringify(down)).not.toContain(cluster.analyst.password);

    // A restart of the app core keeps the queue (it is in swath.db): checked by the queue's own tests; here the server comes back.
    await cluster.start();
    await expect.poll(async () => {
      const s = await t.call('team:status');
      return `${s.state} ${s.pending}`;
    }, { timeout: 60_000 }).toBe('online 0');

    const admin = team.admin();
    const page = await admin.list({ limit: 100 });
    await admin.close();
    expect(page.rasters).toHaveLength(3);
    expect(new Set(page.rasters.map((r) => r.sha256)).size).toBe(3);
    expect(page.rasters.map((r) => r.bands.join(',')).sort()).toEqual(['B4', 'B4,B8', 'B8']);
  });
});

describe.skipIf(!postgresAvailable() && !process.env.CI)('a team catalog without its schema yet', () => {
  it('an analyst is told to ask IT; an admin role signing in applies the migrations', async () => {
    const cluster = await startPostgres();
    const policy: PolicyState = {
      status: 'applied', file: '/etc/swath/policy.json', problems: [],
      policy: { teamCatalogUrl: `postgresql://${cluster.host}:${cluster.port}/${cluster.database}` },
    };
    const t = await startTestApp({ distribution: { policy } });
    try {
      const analyst = await t.call('team:set-credentials', { credentials: { role: cluster.analyst.role, password: cluster.analyst.password } });
      expect(analyst).toMatchObject({ state: 'unreachable', reason: expect.stringMatching(/no Swath schema yet: IT applies it with `npm run team:migrate/) });
      const admin = await t.call('team:set-credentials', { credentials: { role: cluster.admin.role, password: cluster.admin.password } });
      expect(admin).toMatchObject({ state: 'online', role: cluster.admin.role });
      const again = await t.call('team:set-credentials', { credentials: { role: cluster.analyst.role, password: cluster.analyst.password } });
      expect(again).toMatchObject({ state: 'online', reason: null });
    } finally {
      await t.close();
      await cluster.close();
    }
  });
});
