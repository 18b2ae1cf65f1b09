import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datesFromSearchAvailable } from '../../main/batch-plan/time-series';
import { postgresAvailable, type TestCluster } from '../support/postgres';
import { startTeam, type TestTeam } from '../support/team';
import { validateCatalogFolder } from '../main/exports/stac-validator';
import { chromiumAvailable } from './chromium';
import { buyBerlinComposite, ctx, estimateBerlin, teamAnalysts } from './team-harness';
import { BERLIN_WKT, openPanel, type Workspace } from './workspace-harness';

// Two analysts of one organisation, each with their own app core (user data, keychain, demo
// service account), one team catalog (a real PostgreSQL/PostGIS cluster) and one raster share.
// A buys a composite; B's estimate of the same composite shows A's copy, B uses it from the share
// and opens it on the map without buying; both asking for a new date at the same moment buy it once.

describe.skipIf(!chromiumAvailable() || (!postgresAvailable() && !process.env.CI))('team library e2e: two analysts, one catalog, one share', () => {
  let team: TestTeam;
  let cluster: TestCluster;
  let share: string;
  let a: Workspace;
  let b: Workspace;
  const analysts = teamAnalysts<'a' | 'b'>();
  const { purchases } = analysts;

  beforeAll(async () => {
    team = await startTeam(['bob']);
    ({ cluster, share } = team);
    a = await analysts.open('a', team.policy);
    b = await analysts.open('b', team.policy);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await team?.close();
  });

  it('A buys a composite; B sees A\'s copy in the estimate, uses it from the share at 0 EUR and opens it on the map', async () => {
    // A signs in to the catalog with the handler (B does it through Settings below).
    expect(await a.app.handlers['team:set-credentials']({ credentials: { role: cluster.analyst.role, password: cluster.analyst.password } }, ctx())).toMatchObject({ role: cluster.analyst.role });

    await buyBerlinComposite(a, share);
    expect(purchases('a')).toBe(1);

    // B signs in through Settings: the password goes to main's keychain and is never shown again.
    const pb = b.page;
    await openPanel(pb, 'settings');
    await pb.locator('#team-role').fill('bob');
    await pb.locator('#team-password').fill('bob-password');
    await pb.getByTestId('team-save').click();
    await expect.poll(() => pb.getByTestId('team-settings-state').innerText(), { timeout: 15_000 }).toMatch(/Connected as bob/);
    // The status event can reach the page before the answer that clears the field: wait for the field.
    await expect.poll(() => pb.locator('#team-password').inputValue()).toBe('');
    await pb.getByTestId('settings-team').screenshot({ path: 'test-results/team-b-settings.png' });
    await expect.poll(() => pb.getByTestId('team-state').innerText()).toMatch(/Team library/);

    await estimateBerlin(b);
    const notice = pb.getByTestId('team-check');
    await expect.poll(() => notice.getAttribute('data-state'), { timeout: 20_000 }).toBe('owned');
    const match = notice.getByTestId('team-match').first();
    expect(await match.getAttribute('data-exact')).toBe('true');
    expect(await match.innerText()).toMatch(new RegExp(`Bought by ${cluster.analyst.role} on \\d{4}-\\d\\d-\\d\\d \\(UTC\\) — use the team’s copy, 0\\.00 EUR`));
    await pb.getByTestId('step-estimate').scrollIntoViewIfNeeded();
    await pb.screenshot({ path: 'test-results/team-b-estimate.png' });

    // Buying it without saying "Buy anyway" is refused by main, naming the teammate.
    await pb.getByTestId('download').click();
    const refusal = pb.getByTestId('step-download').locator('[role="alert"], .error').first();
    await expect.poll(() => refusal.innerText().catch(() => ''), { timeout: 20_000 }).toMatch(/The team already owns this: bought by/);
    expect(purchases('b')).toBe(0);

    await match.getByTestId('team-use-link').click();
    const used = match.getByTestId('team-used');
    await used.waitFor({ timeout: 20_000 });
    expect(await used.innerText()).toContain(share);
    expect(purchases('b')).toBe(0);

    // B opens the teammate's raster on the map, read from the share.
    const entry = b.app.library.list().find((e) => e.path.startsWith(share))!;
    expect(entry).toBeTruthy();
    await openPanel(pb, 'library');
    await pb.getByTestId(`open-${entry.id}`).click();
    await expect.poll(() => pb.getByTestId(`layer-${entry.id}`).getAttribute('data-status'), { timeout: 30_000 }).toBe('ready');
    await pb.screenshot({ path: 'test-results/team-b-opened.png' });
  });

  it('A and B asking for the same new date at the same moment buy it once', async () => {
    const first = a.app.library.list().find((e) => e.source === 'download')!;
    const found = await a.app.handlers['imagery:search']({ request: { Wkt: BERLIN_WKT, From: '2020-01-01' } }, ctx());
    const dates = datesFromSearchAvailable(found.data, { model: String(first.request!.Model) });
    const other = dates.find((d) => d !== first.request!.Date)!;
    expect(other).toBeTruthy();
    const request = { ...first.request!, Date: other };
    const before = purchases('a') + purchases('b');
    const results = await Promise.allSettled([
      a.app.handlers['downloads:enqueue']({ kind: 'composite', request }, ctx()),
      b.app.handlers['downloads:enqueue']({ kind: 'composite', request }, ctx()),
    ]);
    const queued = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(queued).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(String((refused[0]!.reason as Error).message)).toMatch(/is buying this now/);
    const winner = results[0]!.status === 'fulfilled' ? a : b;
    const loser = winner === a ? b : a;
    const id = (queued[0] as PromiseFulfilledResult<{ id: string }>).value.id;
    // The one told "a teammate is buying it" waits for their copy instead of buying.
    const waited = await loser.app.handlers['team:wait']({ kind: 'composite', request }, ctx());
    expect(waited).toMatchObject({ state: 'owned', matches: [expect.objectContaining({ exact: true, date: other })] });
    expect((await winner.app.handlers['downloads:list']({}, ctx())).jobs.find((j) => j.id === id)?.state).toBe('done');
    expect(purchases('a') + purchases('b')).toBe(before + 1);
  });

  it('B exports the team catalog as a STAC catalog that validates, its assets the files on the share', async () => {
    const pb = b.page;
    await openPanel(pb, 'library');
    await pb.getByTestId('stac-scope').selectOption('team');
    await pb.getByTestId('stac-export-button').click();
    const result = pb.getByTestId('stac-export-result');
    await result.waitFor({ timeout: 20_000 });
    expect(await result.innerText()).toContain('2 items');
    const { items, errors } = validateCatalogFolder(path.dirname((await result.locator('.path').innerText()).trim()));
    expect(errors).toEqual([]);
    expect(items).toHaveLength(2);
    for (const { file, json } of items) {
      const target = path.resolve(path.dirname(file), json.assets.data.href);
      expect(target.startsWith(share)).toBe(true);
      expect(existsSync(target)).toBe(true);
    }
  });
  it('B picks a tile A bought: the tile list says the team owns it, and B uses the team’s copy instead of buying it', async () => {
    const pb = b.page;
    await openPanel(pb, 'imagery');
    const section = pb.getByTestId('step-tiles');
    await section.locator('button.head').click();
    await pb.getByTestId('tile-search-form').getByTestId('schema-submit').click();
    await expect.poll(() => section.innerText(), { timeout: 20_000 }).toMatch(/\d+ tiles\s*· 0 picked/);
    const row = section.locator('.tile-list li').first();
    const guid = (await row.locator('.guid').innerText()).trim();

    // A buys that tile for the date and model B's imagery settings hold (those of the composite A bought first).
    const date = (await pb.getByTestId('download-tiles').innerText()).match(/\d{4}-\d\d-\d\d/)![0];
    const composite = a.app.library.list().find((e) => e.source === 'download' && e.request?.Date === date)!;
    const { Model: model, SatelliteConstellations } = composite.request!;
    const job = await a.app.handlers['downloads:enqueue']({ kind: 'tile', request: { TileGuid: guid, Date: date, Model: model, SatelliteConstellations } }, ctx());
    await expect.poll(async () => (await a.app.handlers['downloads:list']({}, ctx())).jobs.find((j) => j.id === job.id)?.state, { timeout: 30_000 }).toBe('done');
    // Registered in the catalog (copied to the share, then sent): until then a teammate sees A's claim.
    const tile = { kind: 'tile' as const, request: { TileGuid: guid, Date: date, Model: model, SatelliteConstellations } };
    await expect.poll(async () => (await b.app.handlers['team:check'](tile, ctx())).state, { timeout: 30_000 }).toBe('owned');
    const bought = purchases('b');
    const fromShare = () => b.app.library.list().filter((e) => e.path.startsWith(share)).length;
    const linked = fromShare();

    // B picks it: main's team check marks it before anything is bought.
    await row.locator('input[type="checkbox"]').check();
    const badge = row.getByTestId('tile-team-badge');
    await expect.poll(() => badge.innerText().catch(() => ''), { timeout: 20_000 }).toMatch(new RegExp(`team owns it \\(${cluster.analyst.role}, \\d{4}-\\d\\d-\\d\\d\\)`));
    const box = pb.getByTestId('tile-team');
    expect(await box.innerText()).toContain(`Your team already owns 1 of the picked tiles for ${date} and ${model}`);
    await section.scrollIntoViewIfNeeded();
    await pb.screenshot({ path: 'test-results/team-b-tiles.png' });
    await box.getByTestId('tile-team-use').click();
    await expect.poll(() => box.getByTestId('tile-team-used').innerText().catch(() => ''), { timeout: 20_000 }).toBe('1 team copy added to your library, 0.00 EUR.');
    await expect.poll(() => section.innerText()).toMatch(/·\s*0 picked/);
    expect(fromShare()).toBe(linked + 1);
    expect(purchases('b')).toBe(bought);
    expect(b.pageErrors).toEqual([]);
  });
});
