import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { doctorDrift, startDoctoringProxy } from '../main/api/helpers';
import { chromiumAvailable } from './chromium';
import { createProfile, openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

const HAS_CHROMIUM = chromiumAvailable();

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: the service\'s specification changes between connections', () => {
  let ws: Workspace;
  let proxy: Awaited<ReturnType<typeof startDoctoringProxy>> | null = null;
  // A service with the documented demo keys (the embedded one accepts only its per-run key).
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, shapes: process.env.SWATH_SIM_SHAPES });
    ws = await openWorkspace();
    await waitForMap(ws.page);
  });
  afterAll(async () => {
    await proxy?.close();
    await ws?.close();
    await sim?.close();
  });

  it('Settings shows the operations and fields that changed, and the app keeps working from the new specification', async () => {
    const page = ws.page;
    await expect.poll(() => page.getByTestId('connection-state').innerText(), { timeout: 15_000 }).toContain('Connected');
    const demoUrl = sim.url;
    // The simulator behind a proxy that can publish a changed specification.
    let changed = false;
    let doctored = { renamedFrom: '', retyped: '', removed: '' };
    proxy = await startDoctoringProxy(demoUrl, (spec) => {
      if (changed) doctored = doctorDrift(spec);
    });

    const profile = await createProfile(page, { name: 'Updated service', baseUrl: proxy.url, key: 'demo-key' });
    await profile.getByTestId('profile-activate').click();
    await expect.poll(() => profile.getByTestId('profile-active').count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.getByTestId('connection-state').innerText(), { timeout: 15_000 }).toContain('Connected');
    expect(await page.getByTestId('spec-drift').count()).toBe(0);

    // The service publishes its update; the next connection notices.
    changed = true;
    await page.getByTestId('settings-connection').getByRole('button', { name: 'Reconnect' }).click();
    const notice = page.getByTestId('spec-drift');
    await notice.waitFor({ timeout: 20_000 });
    const text = await notice.innerText();
    expect(text).toContain("The service's specification changed");
    expect(text).toContain('GET /api/account/usage');
    expect(text).toContain('POST /api/satelliteproducts/satellitezones/composite');
    expect(text).toContain('POST /api/satelliteproducts/acquisitionplans → /api/satelliteproducts/acquisition-plans');
    expect(text).toContain(`${doctored.renamedFrom} → QuotaOfBands (integer)`);
    expect(text).toContain(`${doctored.retyped}: number → string`);
    expect(text).toContain('MaxResults → MaxResultCount (integer)');
    expect(text).toContain('pageSize (integer)');
    await notice.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/workspace-settings-spec-drift.png' });

    // Still working: connected, and account info reads from the service as before.
    await expect.poll(() => page.getByTestId('connection-state').innerText(), { timeout: 15_000 }).toContain('Connected');
    await openPanel(page, 'account');
    await expect.poll(() => page.getByTestId('account-key').innerText(), { timeout: 15_000 }).toContain('API key: set (…-key)');
    expect(ws.pageErrors).toEqual([]);
  });
});
