// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, makeBridge, ok } from '../../fake-bridge';
import AccountPanel from '../../../../renderer/src/features/account/views/AccountPanel.vue';

const fake = bridgeStandIn();

beforeEach(() => setActivePinia(createPinia()));

describe('Account panel', () => {
  it('shows a key main masked as "API key: set (…7f3a)" and leaves it out of the table', async () => {
    fake.api = makeBridge({
      accountInfo: async () => ok({ data: { Key: '•••• 7f3a', KeyName: 'Analyst', MaxTotalBands: 12, EuroBalance: 100 } }),
    }).api;
    const w = mount(AccountPanel);
    await flushPromises();
    const line = w.get('[data-testid="account-key"]');
    expect(line.text()).toBe('API key: set (…7f3a)');
    const table = w.get('[data-testid="account-info"]').text();
    expect(table).toContain('Analyst');
    expect(table).not.toContain('7f3a');
    expect(w.text()).not.toContain('••••');
  });

  it('a short key is masked without a hint; answers without a key show no key line', async () => {
    fake.api = makeBridge({ accountInfo: async () => ok({ data: { ApiKey: '••••', MaxTotalBands: 12 } }) }).api;
    const w = mount(AccountPanel);
    await flushPromises();
    expect(w.get('[data-testid="account-key"]').text()).toBe('API key: set');
    setActivePinia(createPinia());
    fake.api = makeBridge().api;
    const plain = mount(AccountPanel);
    await flushPromises();
    expect(plain.find('[data-testid="account-key"]').exists()).toBe(false);
    expect(plain.get('[data-testid="account-info"]').text()).toContain('Demo analyst');
  });

  it('a masked key nested deeper is summed up too, and shows in the table as a set key, never as the mark', async () => {
    fake.api = makeBridge({ accountInfo: async () => ok({ data: { Owner: { Name: 'Analyst', Credential: '•••• 7f3a' }, MaxTotalBands: 12 } }) }).api;
    const w = mount(AccountPanel);
    await flushPromises();
    expect(w.get('[data-testid="account-key"]').text()).toBe('API key: set (…7f3a)');
    await w.get('[data-testid="account-info"]').findAll('button').find((b) => b.text() === 'Tree')!.trigger('click');
    expect(w.get('[data-testid="account-info"]').text()).toContain('API key: set (…7f3a)');
    expect(w.text()).not.toContain('••••');
  });
});
