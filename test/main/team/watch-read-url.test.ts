/**
 * A watch on a machine without the team share but with the policy's read URL: the dates a teammate
 * already bought are copied over the URL (sha256 checked) instead of bought, 0 EUR, rather than
 * waiting for a share this machine never mounts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Watch } from '../../../main/watches';
import { postgresAvailable } from '../../support/postgres';
import { startRangeServer, type RangeServer } from '../../support/range-server';
import { startTeam, type TestTeam } from '../../support/team';
import { settled, startTestApp, type TestApp } from '../watches/app-helpers';

const AREA = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const DAY = 86_400_000;

describe.skipIf(!postgresAvailable() && !process.env.CI)('a watch without the share, with the read URL', () => {
  let team: TestTeam;
  let server: RangeServer;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    team = await startTeam(['bob']);
    // Plain http on 127.0.0.1: TLS is not the point here (test/main/team/range-reader.test.ts checks it).
    server = await startRangeServer(team.share);
    a = await startTestApp({ distribution: { policy: team.policy } });
    const { teamSharePath: _none, ...rest } = team.policy.policy!;
    b = await startTestApp({ distribution: { policy: { ...team.policy, policy: { ...rest, teamReadUrl: server.url } } } });
    for (const t of [a, b]) for (const o of t.account().orders) o.downloadsUsed = 1000;
    await a.call('team:set-credentials', { credentials: { role: team.cluster.analyst.role, password: team.cluster.analyst.password } });
    await b.call('team:set-credentials', { credentials: { role: 'bob', password: 'bob-password' } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await server?.close();
    await team?.close();
  });

  it('copies the dates A bought over the URL, buying none of them', async () => {
    const watch = {
      name: 'Berlin centre',
      source: { kind: 'aoi' as const, orderId: null, recurring: null },
      area: { Wkt: AREA },
      model: 'Stratus2',
      constellations: ['Sentinel1', 'Sentinel2'],
      from: new Date(a.clock.now - 40 * DAY).toISOString().slice(0, 10),
      to: new Date(a.clock.now).toISOString().slice(0, 10),
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16' as const, Resolution: 80, PixelSelectionMode: 'intersect' as const },
      capEur: null,
      everyHours: 24,
    };
    const wa = await settled(a, (await a.call<Watch>('watches:create', watch)).id);
    expect(wa.dates.length).toBeGreaterThan(0);
    expect(wa.dates.every((d) => d.state === 'downloaded')).toBe(true);
    // Every date of A's is registered before B looks.
    await expect.poll(async () => (await a.call<{ pending: number }>('team:status')).pending).toBe(0);

    const wb = await settled(b, (await b.call<Watch>('watches:create', watch)).id);
    const seen = JSON.stringify(wb.dates);
    expect(wb.dates.map((d) => d.date).sort(), seen).toEqual(wa.dates.map((d) => d.date).sort());
    expect(wb.dates.every((d) => d.state === 'downloaded'), seen).toBe(true);
    expect(b.account().ledger.filter((e) => e.kind === 'Download'), 'B bought nothing').toEqual([]);
    // Each file in B's library is a copy in B's folder with the bytes A registered.
    const entries = b.app.library.list();
    expect(entries).toHaveLength(wa.dates.length);
    const registered = new Set(a.app.library.list().map((e) => e.sha256));
    for (const e of entries) {
      expect(e.path.startsWith(b.dir)).toBe(true);
      expect(registered.has(createHash('sha256').update(readFileSync(e.path)).digest('hex'))).toBe(true);
    }
    expect(server.requests.length).toBeGreaterThan(0);
  });
});
