import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../main/simulator';
import { chromiumAvailable } from './chromium';
import { openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

const HAS_CHROMIUM = chromiumAvailable();

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: a revoked key opens the key dialog', () => {
  let ws: Workspace;
  // A service with the documented demo keys (as `npm run simulator`); the embedded one accepts only its per-run key.
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
    ws = await openWorkspace();
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

    await openPanel(page, 'settings');
    await page.getByTestId('profile-new').click();
    await page.getByTestId('profile-name').fill('Revoked analyst');
    await page.getByTestId('profile-url').fill(demoUrl);
    await page.getByTestId('profile-key').fill('demo-key-revoked');
    await page.getByTestId('profile-create').click();
    const profile = page.locator('[data-profile="Revoked analyst"]');
    await profile.waitFor();
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
});
