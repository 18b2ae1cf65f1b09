// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, fail, makeBridge, ok, TEAM_OFF } from '../../fake-bridge';
import TeamSection from '../../../../renderer/src/features/settings/views/TeamSection.vue';

const fake = bridgeStandIn();

beforeEach(() => setActivePinia(createPinia()));

const SET_UP = { ...TEAM_OFF, catalogUrl: 'postgres://db.corp.example:5432/swath_team?sslmode=verify-full', sharePath: '/mnt/team', state: 'no-credentials' as const };

describe('Settings → Team library', () => {
  it('is absent without a team catalog in the policy', async () => {
    fake.api = makeBridge().api;
    const w = mount(TeamSection);
    await flushPromises();
    expect(w.find('[data-testid="settings-team"]').exists()).toBe(false);
  });

  it('shows the policy\'s catalog and share, sends the role and password to main once, and clears the password field', async () => {
    const bridge = makeBridge({
      teamStatus: async () => ok(SET_UP),
      teamSetCredentials: async (r) => ok({ ...SET_UP, state: 'online', role: r.credentials.role }),
    });
    fake.api = bridge.api;
    const w = mount(TeamSection);
    await flushPromises();
    expect(w.text()).toContain('postgres://db.corp.example:5432/swath_team?sslmode=verify-full');
    expect(w.get('[data-testid="team-settings-state"]').text()).toContain('Not signed in');
    await w.get('#team-role').setValue(' alice ');
    await w.get('#team-password').setValue('s3cret-pass');
    await w.get('form').trigger('submit');
    await flushPromises();
    expect(bridge.api.teamSetCredentials).toHaveBeenCalledWith({ credentials: { role: 'alice', password: 's3cret-pass' } });
    expect(w.get('[data-testid="team-settings-state"]').text()).toContain('Connected as alice.');
    expect((w.get('#team-password').element as HTMLInputElement).value).toBe('');
    expect(w.html()).not.toContain('s3cret-pass');
  });

  it('shows main\'s refusal and why the catalog is unreachable', async () => {
    const bridge = makeBridge({
      teamStatus: async () => ok({ ...SET_UP, state: 'unreachable', role: 'alice', since: '2026-11-25T08:30:00.000Z', reason: 'login refused for alice', pending: 2 }),
      teamSetCredentials: async () => fail('validation', 'The role may hold letters, digits, _ $ . and -, and starts with a letter or _.', { 'credentials.role': ['The role may hold letters, digits, _ $ . and -, and starts with a letter or _.'] }),
    });
    fake.api = bridge.api;
    const w = mount(TeamSection);
    await flushPromises();
    expect(w.get('[data-testid="team-settings-state"]').text()).toMatch(/Unreachable since 2026-11-25 08:30 UTC: login refused for alice\s+2 downloads waiting to be registered\./);
    await w.get('#team-role').setValue('9lives');
    await w.get('#team-password').setValue('x');
    await w.get('form').trigger('submit');
    await flushPromises();
    expect(w.text()).toContain('The role may hold letters');
  });
});
