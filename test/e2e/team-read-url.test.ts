import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../main/simulator';
import type { Account } from '../../main/simulator/state';
import type { PolicyState } from '../../main/policy';
import { postgresAvailable, type TestCluster } from '../support/postgres';
import { startRangeServer, type RangeServer } from '../support/range-server';
import { startTeam, type TestTeam } from '../support/team';
import { chromiumAvailable } from './chromium';
import { BERLIN_WKT, importAoi, openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// Two analysts, one catalog: A's machine mounts the share; B's does not, but the policy names a
// read URL (an https static server with Range support over the share, its certificate from the
// team's CA). B previews A's raster on the map read over the URL, spending nothing, and copies it
// over the URL; linking it is refused (a library entry is a file, and B has no share).

const ctx = () => ({ senderUrl: '', signal: new AbortController().signal });

describe.skipIf(!chromiumAvailable() || (!postgresAvailable() && !process.env.CI))('team library e2e: the read URL, for a teammate without the share', () => {
  let team: TestTeam;
  let cluster: TestCluster;
  let server: RangeServer;
  let caDir: string;
  let a: Workspace;
  let b: Workspace;
  const sims: Record<'a' | 'b', RunningSimulator | null> = { a: null, b: null };
  const account = (s: RunningSimulator): Account => Object.values(s.state.accounts).find((x) => x.profile.seedDemoOrder)!;
  const purchases = (s: RunningSimulator) => account(s).ledger.filter((e) => e.kind === 'Download').length;

  async function analyst(name: 'a' | 'b', policy: PolicyState): Promise<Workspace> {
    const ws = await openWorkspace({
      app: { distribution: { policy } },
      startSimulator: async (o) => {
        const sim = await startSimulator(o);
        sims[name] = sim;
        return sim;
      },
    });
    await waitForMap(ws.page);
    for (const o of account(sims[name]!).orders) o.downloadsUsed = 1000;
    return ws;
  }

  beforeAll(async () => {
    team = await startTeam(['bob']);
    cluster = team.cluster;
    server = await startRangeServer(team.share, { tls: true });
    caDir = mkdtempSync(path.join(os.tmpdir(), 'swath-team-ca-'));
    writeFileSync(path.join(caDir, 'ca.pem'), server.certPem!);
    a = await analyst('a', team.policy);
    // B: no share mounted (no teamSharePath), the read URL and the team's CA.
    const { teamSharePath: _none, ...rest } = team.policy.policy!;
    b = await analyst('b', { ...team.policy, policy: { ...rest, teamReadUrl: `${server.url}`, teamCatalogCa: path.join(caDir, 'ca.pem') } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await server?.close();
    await team?.close();
    if (caDir) rmSync(caDir, { recursive: true, force: true });
  });

  it('B, without the share, previews A\'s raster on the map over the read URL at 0 EUR; copies it over the URL; a link is refused', async () => {
    await a.app.handlers['team:set-credentials']({ credentials: { role: cluster.analyst.role, password: cluster.analyst.password } }, ctx());
    const pa = a.page;
    await openPanel(pa, 'imagery');
    await importAoi(pa, BERLIN_WKT);
    await pa.getByTestId('search-dates').click();
    await pa.getByTestId('date-calendar').waitFor({ timeout: 20_000 });
    await pa.getByTestId('estimate').click();
    await pa.getByTestId('estimate-result').waitFor({ timeout: 20_000 });
    await pa.getByTestId('download').click();
    await pa.getByTestId('download-queued').waitFor({ timeout: 20_000 });
    await expect.poll(async () => (await a.app.handlers['downloads:list']({}, ctx())).jobs.map((j) => j.state), { timeout: 30_000 }).toEqual(['done']);
    const onShare = () => readdirSync(team.share, { recursive: true }).map(String).filter((f) => f.endsWith('.tif'));
    await expect.poll(() => onShare().length, { timeout: 30_000 }).toBe(1);
    await expect.poll(async () => (await a.app.handlers['team:status']({}, ctx())).pending, { timeout: 30_000 }).toBe(0);
    const sha256 = createHash('sha256').update(readFileSync(path.join(team.share, onShare()[0]!))).digest('hex');

    await b.app.handlers['team:set-credentials']({ credentials: { role: 'bob', password: 'bob-password' } }, ctx());
    const pb = b.page;
    await openPanel(pb, 'imagery');
    await importAoi(pb, BERLIN_WKT);
    await pb.getByTestId('search-dates').click();
    await pb.getByTestId('date-calendar').waitFor({ timeout: 20_000 });
    await pb.getByTestId('estimate').click();
    const notice = pb.getByTestId('team-check');
    await expect.poll(() => notice.getAttribute('data-state'), { timeout: 20_000 }).toBe('owned');
    const match = notice.getByTestId('team-match').first();
    expect(await match.innerText()).toMatch(/reads the file over your organisation’s read URL/);
    expect(await match.getByTestId('team-use-link').count()).toBe(0);
    server.requests.length = 0;
    await pb.getByTestId('step-estimate').scrollIntoViewIfNeeded();
    await pb.screenshot({ path: 'test-results/team-b-read-url-estimate.png' });

    await match.getByTestId('team-preview').click();
    await match.getByTestId('team-previewed').waitFor({ timeout: 20_000 });
    const layer = pb.locator('[data-testid^="layer-team-"]');
    await openPanel(pb, 'library');
    await expect.poll(() => layer.getAttribute('data-status'), { timeout: 30_000 }).toBe('ready');
    await pb.screenshot({ path: 'test-results/team-b-read-url-map.png' });
    // Read range by range over https, never the whole file at once, with no credentials.
    expect(server.requests.length).toBeGreaterThan(1);
    for (const r of server.requests) {
      expect(r.headers.range).toMatch(/^bytes=\d+-\d+$/);
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
    }
    // Nothing bought, nothing added to B's library.
    expect(purchases(sims.b!)).toBe(0);
    expect(b.app.library.list()).toEqual([]);

    const id = (await b.app.handlers['team:check']({ kind: 'composite', request: a.app.library.list()[0]!.request! }, ctx())).matches[0]!.id;
    await expect(b.app.handlers['team:use-copy']({ id, mode: 'link' }, ctx())).rejects.toThrow(/cannot be linked: this machine does not mount the team share .* Preview it on the map .*or copy it/);
    const copied = await b.app.handlers['team:use-copy']({ id, mode: 'copy' }, ctx());
    expect(copied.path.startsWith(b.downloadsDir)).toBe(true);
    expect(createHash('sha256').update(readFileSync(copied.path)).digest('hex')).toBe(sha256);
    expect(readdirSync(path.dirname(copied.path)).filter((f) => f.endsWith('.part'))).toEqual([]);
    expect(purchases(sims.b!)).toBe(0);
  });
});
