import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, type TestCluster } from '../support/postgres';
import { startRangeServer, type RangeServer } from '../support/range-server';
import { startTeam, type TestTeam } from '../support/team';
import { chromiumAvailable } from './chromium';
import { buyBerlinComposite, ctx, estimateBerlin, teamAnalysts } from './team-harness';
import { openPanel, type Workspace } from './workspace-harness';

// Two analysts, one catalog: A's machine mounts the share; B's does not, but the policy names a
// read URL (an https static server with Range support over the share, its certificate from the
// team's CA). B previews A's raster on the map read over the URL, spending nothing, and copies it
// over the URL; linking it is refused (a library entry is a file, and B has no share).

describe.skipIf(!chromiumAvailable() || (!postgresAvailable() && !process.env.CI))('team library e2e: the read URL, for a teammate without the share', () => {
  let team: TestTeam;
  let cluster: TestCluster;
  let server: RangeServer;
  let caDir: string;
  let a: Workspace;
  let b: Workspace;
  const analysts = teamAnalysts<'a' | 'b'>();

  beforeAll(async () => {
    team = await startTeam(['bob']);
    cluster = team.cluster;
    server = await startRangeServer(team.share, { tls: true });
    caDir = mkdtempSync(path.join(os.tmpdir(), 'swath-team-ca-'));
    writeFileSync(path.join(caDir, 'ca.pem'), server.certPem!);
    a = await analysts.open('a', team.policy);
    // B: no share mounted (no teamSharePath), the read URL and the team's CA.
    const { teamSharePath: _none, ...rest } = team.policy.policy!;
    b = await analysts.open('b', { ...team.policy, policy: { ...rest, teamReadUrl: `${server.url}`, teamCatalogCa: path.join(caDir, 'ca.pem') } });
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
    await buyBerlinComposite(a, team.share);
    const onShare = readdirSync(team.share, { recursive: true }).map(String).filter((f) => f.endsWith('.tif'));
    const sha256 = createHash('sha256').update(readFileSync(path.join(team.share, onShare[0]!))).digest('hex');

    await b.app.handlers['team:set-credentials']({ credentials: { role: 'bob', password: 'bob-password' } }, ctx());
    const pb = b.page;
    await estimateBerlin(b);
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
    expect(analysts.purchases('b')).toBe(0);
    expect(b.app.library.list()).toEqual([]);

    const id = (await b.app.handlers['team:check']({ kind: 'composite', request: a.app.library.list()[0]!.request! }, ctx())).matches[0]!.id;
    await expect(b.app.handlers['team:use-copy']({ id, mode: 'link' }, ctx())).rejects.toThrow(/cannot be linked: this machine does not mount the team share .* Preview it on the map .*or copy it/);
    const copied = await b.app.handlers['team:use-copy']({ id, mode: 'copy' }, ctx());
    expect(copied.path.startsWith(b.downloadsDir)).toBe(true);
    expect(createHash('sha256').update(readFileSync(copied.path)).digest('hex')).toBe(sha256);
    expect(readdirSync(path.dirname(copied.path)).filter((f) => f.endsWith('.part'))).toEqual([]);
    expect(analysts.purchases('b')).toBe(0);
  });
});
