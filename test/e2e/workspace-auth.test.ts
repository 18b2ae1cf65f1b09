import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { ANSWER_STYLES } from '../simulator/helpers';
import { chromiumAvailable } from './chromium';
import { createProfile, openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

const HAS_CHROMIUM = chromiumAvailable();

// Both answer styles: the key is echoed wherever the style puts it, and must be masked there too.
describe.skipIf(!HAS_CHROMIUM).each(ANSWER_STYLES)('workspace e2e: keys (%s answers)', (shapes) => {
  let ws: Workspace;
  // A service with the documented demo keys (as `npm run simulator`); the embedded one accepts only its per-run key.
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, shapes });
    ws = await openWorkspace({ shapes });
    await waitForMap(ws.page);
  });
  afterAll(async () => {
    await ws?.close();
    await sim?.close();
  });

  it('creates a profile on a local simulator with a revoked key; using it opens the key dialog; a good key fixes it', async () => {
    const page = ws.page;
    await expect.poll(() => page.getByTestId('connection-state').innerText(), { timeout: 15_000 }).toContain('Connected');
    const demoUrl = sim.url;

    const profile = await createProfile(page, { name: 'Revoked analyst', baseUrl: demoUrl, key: 'demo-key-revoked' });
    // Write-only: only the last four characters ever come back.
    expect(await profile.getByTestId('key-status').innerText()).toBe('Key set, ends in …oked');
    expect(await page.locator('body').innerText()).not.toContain('demo-key-revoked');

    await profile.getByTestId('profile-activate').click();
    const dialog = page.getByTestId('key-dialog');
    await dialog.waitFor({ timeout: 20_000 });
    expect(await dialog.innerText()).toContain('The service refused the API key');
    expect(await dialog.innerText()).toContain('Revoked analyst');
    expect(await dialog.getByTestId('key-input').getAttribute('type')).toBe('password');
    await expect.poll(() => page.getByTestId('connection-state').innerText()).toContain('Unreachable');
    await page.screenshot({ path: 'test-results/workspace-key-dialog.png' });

    await dialog.getByTestId('key-input').fill('demo-key');
    await dialog.getByTestId('key-save').click();
    await expect.poll(() => page.getByTestId('key-dialog').count(), { timeout: 20_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('connection-state').innerText(), { timeout: 15_000 }).toContain('Connected');
    expect(await profile.getByTestId('key-status').innerText()).toBe('Key set, ends in …-key');
    await page.screenshot({ path: 'test-results/workspace-panel-settings-profiles.png' });
    expect(ws.pageErrors).toEqual([]);
  });

  it('the key never reaches the page: account info (which echoes the key), key test, a download and errors: no key in the DOM, any WebSocket frame, the logs or userData', async () => {
    const page = ws.page;
    // Every IPC message both ways, from the page's first frame: listen, then load the page again.
    const sent: string[] = [];
    const received: string[] = [];
    page.on('websocket', (socket) => {
      socket.on('framesent', (f) => sent.push(String(f.payload)));
      socket.on('framereceived', (f) => received.push(String(f.payload)));
    });
    await page.reload();
    await waitForMap(page);
    await expect.poll(() => page.getByTestId('connection-state').innerText(), { timeout: 15_000 }).toContain('Connected');
    type Bridge = Record<string, (req?: unknown) => Promise<{ ok: boolean; data?: any; error?: any }>>;
    const bridge = <T>(method: string, req?: unknown) =>
      page.evaluate(([m, r]) => (window as unknown as { swath: Bridge }).swath[m as string]!(r), [method, req] as const) as Promise<T>;

    // The demo service answers account info with its key in Key, as the production service does.
    await openPanel(page, 'account');
    // The embedded demo service takes a random key per run; only its last four characters may show.
    await expect.poll(() => page.getByTestId('account-key').innerText(), { timeout: 15_000 }).toMatch(/API key: set \(…\S{4}\)/);
    await page.screenshot({ path: 'test-results/workspace-account-key-masked.png' });

    // A download with the demo key.
    const search = await bridge<any>('imagerySearch', { request: { Wkt: 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))', From: '2026-08-01', Until: null } });
    const date = search.data.data.ModelImageDates[0].DatesByGeog[0].Dates.at(-1);
    const job = await bridge<any>('downloadsEnqueue', { kind: 'composite', request: { Wkt: 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))', Date: date, Model: 'Stratus2', Resolution: 40, EpsgProjection: 32633, Bandnames: 'rgb' } });
    expect(job.ok).toBe(true);
    await expect.poll(async () => (await bridge<any>('downloadsList')).data.jobs.find((j: any) => j.id === job.data.id).state, { timeout: 30_000 }).toBe('done');

    // Another profile's key, entered through Settings, tested, and used (its account echoes it too).
    // The suite's own simulator takes the documented keys (the embedded one only its random key).
    const profile = await createProfile(page, { name: 'Echoed analyst', baseUrl: sim.url, key: 'demo-key-empty' });
    await profile.getByTestId('key-test').click();
    await expect.poll(() => profile.getByTestId('key-test-result').innerText(), { timeout: 15_000 }).toContain('accepted');
    await profile.getByTestId('profile-activate').click();
    await expect.poll(() => profile.getByTestId('profile-active').count(), { timeout: 15_000 }).toBe(1);
    await openPanel(page, 'account');
    await expect.poll(() => page.getByTestId('account-key').innerText(), { timeout: 15_000 }).toContain('API key: set (…mpty)');
    // Errors: a refused request, and a revoked key.
    const refused = await bridge<any>('downloadsEnqueue', { kind: 'composite', request: { Wkt: 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))', Date: date, Model: 'Stratus-2' } });
    expect(refused.ok).toBe(false);
    const revoked = await bridge<any>('profilesSetKey', { id: (await bridge<any>('profilesList')).data.activeProfileId, key: 'demo-key-revoked' });
    expect(revoked.ok).toBe(true);
    expect((await bridge<any>('accountInfo')).error.kind).toBe('auth');
    expect((await bridge<any>('profilesTestKey', { id: revoked.data.id })).data.status).toBe('auth');

    // The key values: the documented ones entered here, and the embedded service's per-run random key
    // (main's own secret: it must not reach the page even in a request).
    expect(ws.serviceKeys).toHaveLength(1);
    expect(ws.serviceKeys[0]).toMatch(/^demo-.{20,}$/);
    const keys = ['demo-key-revoked', 'demo-key-empty', 'demo-key', ...ws.serviceKeys];
    const forbid = (text: string, where: string) => {
      for (const k of keys) expect(text.includes(k), `${where} contains ${k}`).toBe(false);
    };
    // The page: everything it shows, and its whole DOM.
    forbid(await page.locator('body').innerText(), 'page text');
    forbid(await page.content(), 'DOM');
    // Main -> page: every answer and event.
    expect(received.length).toBeGreaterThan(20);
    for (const frame of received) forbid(frame, `frame ${frame.slice(0, 80)}`);
    // Page -> main: a key value only where the analyst hands one to main, in the field the contract
    // declares for it (profiles:create and profiles:set-key's key); nowhere else in any request.
    expect(sent.length).toBeGreaterThan(20);
    const given: string[] = [];
    for (const frame of sent) {
      const msg = JSON.parse(frame) as { channel: string; payload: Record<string, unknown> };
      const { key, ...rest } = msg.payload ?? {};
      if (['profiles:create', 'profiles:set-key'].includes(msg.channel)) {
        given.push(String(key));
        forbid(JSON.stringify(rest), `request ${msg.channel}`);
      } else forbid(frame, `request ${msg.channel}`);
    }
    // The keys the test typed did cross, where they should: the check above looked at real frames.
    expect(given).toEqual(['demo-key-empty', 'demo-key-revoked']);
    expect(ws.logs.length).toBeGreaterThan(0);
    forbid(ws.logs.join('\n'), 'logs');
    const files = readdirSync(ws.dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    for (const f of files) {
      const full = path.join(f.parentPath, f.name);
      if (full.endsWith('.tif')) continue;
      const text = readFileSync(full, 'utf8');
      // The embedded demo service's own account store is the service's side: it keys accounts by their
      // documented names ('demo-key'), never by the per-run key.
      if (f.name === 'demo-state.json') for (const k of ws.serviceKeys) expect(text.includes(k), `${full} contains the per-run key`).toBe(false);
      else forbid(text, full);
    }
    expect(ws.pageErrors).toEqual([]);
  });
});
