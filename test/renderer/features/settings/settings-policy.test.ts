// @vitest-environment jsdom
/* eslint-disable vue/one-component-per-file -- a broken component and its shell, to test the error view */
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { createApp, defineComponent, h } from 'vue';
import { beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, makeBridge, NO_POLICY, ok, UPDATES_OFF } from '../../fake-bridge';
import SettingsPanel from '../../../../renderer/src/features/settings/views/SettingsPanel.vue';
import Root from '../../../../renderer/src/Root.vue';
import ErrorView from '../../../../renderer/src/platform/components/ErrorView.vue';
import { crash, installErrorHandlers } from '../../../../renderer/src/platform/stores/crash';

const fake = bridgeStandIn();

beforeEach(() => {
  setActivePinia(createPinia());
  crash.error = null;
});

const LOCKED = { id: 'corp', name: 'Production', baseUrl: 'https://imagery.corp.example', builtIn: false, active: true, keySet: false, keyLast4: null };
const OWN = { id: 'mine', name: 'My test service', baseUrl: 'https://test.example', builtIn: false, active: false, keySet: false, keyLast4: null };
const POLICY = {
  ...NO_POLICY, status: 'applied' as const, file: '/etc/swath/policy.json', lockedProfileIds: ['corp'], hideDemoService: true,
  basemap: { online: 'none' as const, xyzUrl: null, attribution: null }, downloadDir: '/srv/imagery',
  updates: { url: 'https://updates.corp.example/swath/', channel: 'stable' as const, enabled: null },
  monthlyBudget: { amount: 500, currency: 'EUR' }, notifications: false,
};

describe('Settings under an admin policy', () => {
  it('shows what is fixed, locks the policy profile and disables fixed controls', async () => {
    const bridge = makeBridge({
      policyGet: async () => ok(POLICY),
      profilesList: async () => ok({ profiles: [LOCKED, OWN], activeProfileId: 'corp', keychainError: null }),
      settingsGet: async () => ok({ downloadDir: '/srv/imagery', theme: 'system', osmLayer: false }),
      updatesStatus: async () => ok({ ...UPDATES_OFF, state: 'idle', message: 'Updates come from https://updates.corp.example/swath/ (set by policy).', url: 'https://updates.corp.example/swath/', channelFixed: true }),
    });
    fake.api = bridge.api;
    const w = mount(SettingsPanel);
    await flushPromises();
    const fixed = w.get('[data-testid="policy-fixed"]').text();
    expect(fixed).toContain('1 predefined and locked');
    expect(fixed).toContain('Off (no remote tiles)');
    expect(fixed).toContain('/srv/imagery');
    expect(fixed).toContain('500 EUR');
    expect(fixed).toMatch(/Enforced: no spend goes past it, and no profile’s monthly budget can be above it/);
    expect(w.find('[data-testid="policy-problems"]').exists()).toBe(false);
    expect(fixed).toMatch(/Notifications\s*Off/);
    const [corp, mine] = w.findAll('[data-testid="profile"]');
    expect(corp!.find('[data-testid="profile-locked"]').exists()).toBe(true);
    expect(corp!.findAll('button').map((b) => b.text())).not.toContain('Edit');
    expect(corp!.findAll('button').map((b) => b.text())).not.toContain('Delete profile');
    // The key of a locked profile is still the user's to set.
    expect(corp!.find('[data-testid="key-input"]').exists()).toBe(true);
    expect(mine!.find('[data-testid="profile-locked"]').exists()).toBe(false);
    expect(mine!.findAll('button').map((b) => b.text())).toContain('Edit');
    expect(w.get('[data-testid="download-dir"]').attributes('disabled')).toBeDefined();
    expect(w.get('[data-testid="osm-toggle"]').attributes('disabled')).toBeDefined();
    expect(w.get('[data-testid="basemap-fixed"]').text()).toMatch(/turned off/);
    const channelButtons = w.get('[data-testid="settings-updates"]').findAll('[role="radio"]');
    expect(channelButtons.every((b) => b.attributes('disabled') !== undefined)).toBe(true);
  });

  it('a budget in another currency is shown as a problem main could not honour, not as applied', async () => {
    const problem = 'monthlyBudget: 100 USD cannot be enforced: the service bills in EUR and Swath does not convert currencies. Until the policy names the budget in EUR, every spend needs your confirmation.';
    fake.api = makeBridge({ policyGet: async () => ok({ ...POLICY, monthlyBudget: { amount: 100, currency: 'USD' }, problems: [problem] }) }).api;
    const w = mount(SettingsPanel);
    await flushPromises();
    expect(w.get('[data-testid="policy-problems"]').text()).toMatch(/cannot be used.*fails safe.*100 USD cannot be enforced/s);
    // One alert for every problem, however many features found one.
    expect(w.findAll('[data-testid="policy-problems"]')).toHaveLength(1);
    expect(w.get('[data-testid="policy-fixed"]').text()).toMatch(/100 USD\s*Cannot be enforced/);
  });

  it('an invalid policy is reported with its problems and nothing is shown as fixed', async () => {
    fake.api = makeBridge({ policyGet: async () => ok({ ...NO_POLICY, status: 'invalid' as const, problems: ['(top level): unknown key hideDemo.'] }) }).api;
    const w = mount(SettingsPanel);
    await flushPromises();
    expect(w.get('[data-testid="policy-invalid"]').text()).toMatch(/ignored.*unknown key hideDemo/s);
    expect(w.find('[data-testid="policy-fixed"]').exists()).toBe(false);
    expect(w.get('[data-testid="download-dir"]').attributes('disabled')).toBeUndefined();
  });

  it('an http update feed in an applied policy is shown as a problem, the rest stays fixed (issue 24)', async () => {
    const feed = 'http://10.1.2.3/feed/';
    fake.api = makeBridge({
      policyGet: async () => ok({ ...POLICY, updates: { url: feed, channel: null, enabled: null }, problems: [`updates.url: the update URL ${feed} uses plain http: … Updates are off until it is fixed.`] }),
      updatesStatus: async () => ok({ ...UPDATES_OFF, message: `Updates are off: the update URL ${feed} uses plain http.`, url: feed }),
    }).api;
    const w = mount(SettingsPanel);
    await flushPromises();
    expect(w.get('[data-testid="policy-problems"]').text()).toMatch(/cannot be used.*updates\.url: .*plain http.*Updates are off/s);
    expect(w.get('[data-testid="policy-fixed"]').text()).toContain('/srv/imagery');
    expect(w.get('[data-testid="update-state"]').text()).toMatch(/Updates are off/);
  });

  it('without a policy file there is no policy section', async () => {
    fake.api = makeBridge().api;
    const w = mount(SettingsPanel);
    await flushPromises();
    expect(w.find('[data-testid="settings-policy"]').exists()).toBe(false);
    expect(w.get('[data-testid="update-state"]').text()).toMatch(/no update server/);
  });

  it('a downloaded update shows its notes and restarts only when asked', async () => {
    const ready = { ...UPDATES_OFF, state: 'ready' as const, message: 'Swath 0.2.0 is ready: restart to install it.', version: '0.2.0', releaseNotes: 'Policy support.', url: 'https://u.example/', percent: 100 };
    const bridge = makeBridge({ updatesStatus: async () => ok(ready), updatesInstall: async () => ok(ready) });
    fake.api = bridge.api;
    const w = mount(SettingsPanel);
    await flushPromises();
    expect(w.get('[data-testid="settings-updates"]').text()).toContain('Policy support.');
    expect(bridge.api.updatesInstall).not.toHaveBeenCalled();
    await w.get('[data-testid="update-restart"]').trigger('click');
    expect(bridge.api.updatesInstall).toHaveBeenCalledTimes(1);
  });
});

describe('About and the error view', () => {
  it('About shows the version, the contract version and the licences', async () => {
    const bridge = makeBridge();
    fake.api = bridge.api;
    const w = mount(Root, { attachTo: document.body, global: { stubs: { App: true } } });
    bridge.emit('app:command', { command: 'about' });
    await flushPromises();
    const dialog = document.querySelector('[data-testid="about-dialog"]')!;
    expect(dialog.textContent).toContain('Swath 0.1.0');
    expect(dialog.textContent).toContain('IPC contract 1.0.0');
    expect(dialog.querySelector('[data-testid="about-licenses"]')!.textContent).toMatch(/vue\s*3\.5\.45\s*MIT/);
    w.unmount();
  });

  it('diagnostics leave profile names out unless the analyst ticks them in (issue 24)', async () => {
    const bridge = makeBridge();
    fake.api = bridge.api;
    const w = mount(SettingsPanel);
    await flushPromises();
    await w.get('[data-testid="diagnostics-copy"]').trigger('click');
    await flushPromises();
    expect(bridge.api.diagnosticsGet).toHaveBeenLastCalledWith({ includeProfileNames: false });
    await w.get('[data-testid="diagnostics-profile-names"]').setValue(true);
    await w.get('[data-testid="diagnostics-copy"]').trigger('click');
    await flushPromises();
    expect(bridge.api.diagnosticsGet).toHaveBeenLastCalledWith({ includeProfileNames: true });
  });

  it('an error while rendering is logged by main and shows a recoverable view, not a blank window', async () => {
    const bridge = makeBridge();
    fake.api = bridge.api;
    const Broken = defineComponent({
      setup() {
        return () => {
          throw new Error('render exploded');
        };
      },
    });
    const Shell = defineComponent({ setup: () => () => [h(Broken), h(ErrorView)] });
    // A real app as main.ts builds it: the handlers installed before mount.
    const app = createApp(Shell).use(createPinia());
    installErrorHandlers(app, new EventTarget() as unknown as Window);
    const host = document.createElement('div');
    document.body.appendChild(host);
    app.mount(host);
    await flushPromises();
    expect(bridge.api.appReportError).toHaveBeenCalledWith(expect.objectContaining({ source: 'vue', message: 'render exploded' }));
    const view = host.querySelector('[data-testid="error-view"]')!;
    expect(view.textContent).toContain('render exploded');
    expect(view.querySelector('[data-testid="error-reload"]')!.textContent).toBe('Reload');
    (view.querySelector('[data-testid="error-copy"]') as HTMLButtonElement).click();
    await flushPromises();
    expect(bridge.api.diagnosticsGet).toHaveBeenCalled();
    app.unmount();
  });

  it('window errors open the view; unhandled rejections are only logged', async () => {
    const bridge = makeBridge();
    fake.api = bridge.api;
    const target = new EventTarget();
    installErrorHandlers({ config: {} } as never, target as unknown as Window);
    const rejection = Object.assign(new Event('unhandledrejection'), { reason: new Error('nobody awaited me') });
    target.dispatchEvent(rejection);
    expect(crash.error).toBeNull();
    expect(bridge.api.appReportError).toHaveBeenCalledWith(expect.objectContaining({ source: 'promise', message: 'nobody awaited me' }));
    const error = Object.assign(new Event('error'), { error: new Error('script failed'), message: 'script failed' });
    target.dispatchEvent(error);
    expect(crash.error).toMatchObject({ message: 'script failed' });
  });
});
