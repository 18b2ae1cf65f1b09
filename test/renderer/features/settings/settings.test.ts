// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, DEMO_STATUS, fail, makeBridge, ok, PROFILES } from '../../fake-bridge';
import SettingsPanel from '../../../../renderer/src/features/settings/views/SettingsPanel.vue';
import { applyTheme } from '../../../../renderer/src/features/settings/stores/settings';

const fake = bridgeStandIn();

beforeEach(() => setActivePinia(createPinia()));

describe('Settings panel', () => {
  it('treats keys as write-only: a password field cleared after saving, never shown back', async () => {
    const bridge = makeBridge();
    fake.api = bridge.api;
    const w = mount(SettingsPanel);
    await flushPromises();
    const profile = w.get('[data-testid="profile"]');
    expect(profile.get('[data-testid="key-status"]').text()).toBe('Key set, ends in …-key');
    const input = profile.get('[data-testid="key-input"]');
    expect(input.attributes('type')).toBe('password');
    await input.setValue('my-secret-key-1234');
    await profile.get('form').trigger('submit');
    await flushPromises();
    expect(bridge.api.profilesSetKey).toHaveBeenCalledWith({ id: 'demo', key: 'my-secret-key-1234' });
    expect((input.element as HTMLInputElement).value).toBe('');
    expect(w.html()).not.toContain('my-secret-key-1234');
    expect(bridge.api.profilesTestKey).toHaveBeenCalledWith({ id: 'demo' });
    expect(w.get('[data-testid="key-test-result"]').text()).toContain('accepted');
  });

  it('creates a profile and shows field errors next to its inputs', async () => {
    const bridge = makeBridge({
      profilesCreate: async () => fail('validation', 'Invalid profile.', { baseUrl: ['Plain http is refused for remote hosts; use https.'] }),
    });
    fake.api = bridge.api;
    const w = mount(SettingsPanel);
    await flushPromises();
    await w.get('[data-testid="profile-new"]').trigger('click');
    await w.get('[data-testid="profile-name"]').setValue('Prod');
    await w.get('[data-testid="profile-url"]').setValue('http://imagery.example.com');
    await w.get('[data-testid="profile-key"]').setValue('k');
    await w.get('[data-testid="profile-form"]').trigger('submit');
    await flushPromises();
    expect(bridge.api.profilesCreate).toHaveBeenCalledWith({ name: 'Prod', baseUrl: 'http://imagery.example.com', key: 'k' });
    expect(w.get('[data-testid="profile-form"]').text()).toContain('use https');
    expect((w.get('[data-testid="profile-key"]').element as HTMLInputElement).value).toBe('');
  });

  it('activating a profile restarts the session', async () => {
    const bridge = makeBridge({
      profilesList: async () => ({
        ok: true,
        data: { ...PROFILES, profiles: [...PROFILES.profiles, { id: 'p2', name: 'Other', baseUrl: 'https://x.example', builtIn: false, active: false, keySet: false, keyLast4: null, keyOrigin: null, keyNeedsConfirm: false }] },
      }),
    });
    fake.api = bridge.api;
    const w = mount(SettingsPanel);
    await flushPromises();
    await w.get('[data-profile="Other"] [data-testid="profile-activate"]').trigger('click');
    await flushPromises();
    expect(bridge.api.profilesActivate).toHaveBeenCalledWith({ id: 'p2' });
    expect(bridge.api.appInfo).toHaveBeenCalled();
    expect(bridge.api.servicePing).toHaveBeenCalled();
  });

  it('shows a key bound to another origin, and asks main (not the page) to confirm the new one', async () => {
    const moved = { id: 'p3', name: 'Moved', baseUrl: 'https://b.example/api', builtIn: false, active: false, keySet: true, keyLast4: '1234', keyOrigin: 'https://a.example', keyNeedsConfirm: true };
    const bridge = makeBridge({
      profilesList: async () => ({ ok: true, data: { ...PROFILES, profiles: [...PROFILES.profiles, moved] } }),
      profilesConfirmOrigin: async () => fail('validation', 'This window cannot confirm sending the key of "Moved" to https://b.example; enter the key again.'),
    });
    fake.api = bridge.api;
    const w = mount(SettingsPanel);
    await flushPromises();
    const row = w.get('[data-profile="Moved"]');
    expect(row.get('[data-testid="key-origin"]').text()).toContain('Key entered for https://a.example; re-enter it or confirm it for https://b.example.');
    expect(w.find('[data-profile="Demo service (offline)"] [data-testid="key-origin"]').exists()).toBe(false);
    await row.get('[data-testid="key-confirm-origin"]').trigger('click');
    await flushPromises();
    expect(bridge.api.profilesConfirmOrigin).toHaveBeenCalledWith({ id: 'p3' });
    expect(row.text()).toContain('enter the key again');
  });
});

describe('Settings: contract drift notice', () => {
  const DRIFT = {
    previous: { version: '1.0.0', fetchedAt: '2026-11-20T08:00:00.000Z' },
    current: { version: '1.0.0', fetchedAt: '2026-11-24T08:00:00.000Z' },
    detectedAt: '2026-11-24T08:00:01.000Z',
    operations: {
      added: [{ method: 'GET', path: '/api/account/usage', operationId: null }],
      removed: [{ method: 'POST', path: '/api/satelliteproducts/satellitezones/composite', operationId: 'X' }],
      renamed: [{ from: { method: 'POST', path: '/api/satelliteproducts/acquisitionplans', operationId: null }, to: { method: 'POST', path: '/api/satelliteproducts/acquisition-plans', operationId: null } }],
    },
    fields: [
      { operation: 'GET /api/account/info', section: 'response' as const, change: 'renamed' as const, field: 'MaxTotalBands', to: 'QuotaOfBands', type: 'integer' },
      { operation: 'GET /api/account/info', section: 'response' as const, change: 'retyped' as const, field: 'MaxCompositeAreaKm2', type: 'string', fromType: 'number' },
      { operation: 'GET /api/tasking/orders', section: 'parameter' as const, change: 'added' as const, field: 'pageSize', type: 'integer' },
      { operation: 'GET /api/tasking/orders', section: 'response' as const, change: 'removed' as const, field: 'TenantId', type: 'string' },
    ],
  };

  it('shows operations and fields added, removed, renamed and retyped, grouped by operation, with the rename heuristic explained', async () => {
    const bridge = makeBridge({ serviceStatus: async () => ok({ ...DEMO_STATUS, specDrift: DRIFT }) });
    fake.api = bridge.api;
    const w = mount(SettingsPanel);
    await flushPromises();
    const notice = w.get('[data-testid="spec-drift"]');
    expect(notice.text()).toContain("The service's specification changed");
    expect(notice.text()).toContain('version 1.0.0 both times');
    const ops = notice.findAll('[data-testid="spec-drift-operations"] li').map((li) => [li.attributes('data-change'), li.text()]);
    expect(ops).toEqual([
      ['added', '+GET /api/account/usage added'],
      ['removed', '−POST /api/satelliteproducts/satellitezones/composite removed'],
      ['renamed', '~POST /api/satelliteproducts/acquisitionplans → /api/satelliteproducts/acquisition-plans renamed'],
    ]);
    const groups = notice.findAll('[data-testid="spec-drift-fields"]');
    expect(groups.map((g) => g.get('.op').text())).toEqual(['GET /api/account/info', 'GET /api/tasking/orders']);
    expect(groups[0]!.text()).toContain('response Data renamed MaxTotalBands → QuotaOfBands (integer)');
    expect(groups[0]!.text()).toContain('response Data retyped MaxCompositeAreaKm2: number → string');
    expect(groups[1]!.text()).toContain('parameter added pageSize (integer)');
    expect(groups[1]!.text()).toContain('response Data removed TenantId (string)');
    expect(notice.text()).toMatch(/same type, in the same place\s+or with a similar name/);
  });

  it('shows nothing when the specification did not change', async () => {
    fake.api = makeBridge().api;
    const w = mount(SettingsPanel);
    await flushPromises();
    expect(w.find('[data-testid="spec-drift"]').exists()).toBe(false);
  });
});

describe('the theme', () => {
  it('is announced to the map only when it changes (the settings read at every start change nothing)', () => {
    let announced = 0;
    const count = () => announced++;
    document.addEventListener('swath-theme', count);
    try {
      applyTheme('system');
      expect(document.documentElement.dataset.theme).toBeUndefined();
      expect(announced).toBe(0);
      applyTheme('dark');
      expect(document.documentElement.dataset.theme).toBe('dark');
      expect(announced).toBe(1);
      applyTheme('dark');
      expect(announced).toBe(1);
      applyTheme('light');
      applyTheme('system');
      expect(document.documentElement.dataset.theme).toBeUndefined();
      expect(announced).toBe(3);
    } finally {
      document.removeEventListener('swath-theme', count);
    }
  });
});
