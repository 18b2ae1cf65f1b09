// @vitest-environment jsdom
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppInfo, EventPayload, Result, SwathApi } from '../../preload/contract';

const fake = vi.hoisted(() => ({ api: null as unknown }));

vi.mock('../../renderer/src/bridge', () => ({ getBridge: () => fake.api }));

const App = (await import('../../renderer/src/App.vue')).default;

const info: AppInfo = {
  version: '0.1.0',
  platform: 'linux',
  service: { label: 'Demo service (offline)', baseUrl: 'http://127.0.0.1:40001', demo: true },
  contractVersion: '1.0.0',
};

type Listener = (payload: EventPayload<'connection:state'>) => void;

function makeBridge(overrides: Partial<{ appInfo: () => Promise<Result<AppInfo>>; servicePing: () => Promise<Result<{ reachable: boolean; latencyMs: number }>> }> = {}) {
  const listeners = new Set<Listener>();
  const unsubscribe = vi.fn((listener: Listener) => listeners.delete(listener));
  const api = {
    appInfo: vi.fn(overrides.appInfo ?? (async () => ({ ok: true as const, data: info }))),
    servicePing: vi.fn(overrides.servicePing ?? (async () => ({ ok: true as const, data: { reachable: true, latencyMs: 4.4 } }))),
    on: vi.fn((event: string, listener: Listener) => {
      expect(event).toBe('connection:state');
      listeners.add(listener);
      return () => unsubscribe(listener);
    }),
  };
  fake.api = api as unknown as SwathApi;
  return { api, listeners, unsubscribe, push: (payload: EventPayload<'connection:state'>) => listeners.forEach((l) => l(payload)) };
}

let wrapper: VueWrapper | null = null;

async function mountApp(): Promise<VueWrapper> {
  const pinia = createPinia();
  setActivePinia(pinia);
  wrapper = mount(App, { global: { plugins: [pinia] } });
  await flushPromises();
  return wrapper;
}

const text = (w: VueWrapper, id: string): string => w.get(`[data-testid="${id}"]`).text();

beforeEach(() => {
  wrapper = null;
});
afterEach(() => wrapper?.unmount());

describe('App shell', () => {
  it('shows the demo service and its connection state in the status bar', async () => {
    const bridge = makeBridge();
    const w = await mountApp();
    expect(bridge.api.appInfo).toHaveBeenCalledOnce();
    expect(bridge.api.servicePing).toHaveBeenCalledOnce();
    expect(text(w, 'service-label')).toBe('Demo service (offline)');
    expect(text(w, 'connection-state')).toContain('Connected');
    expect(text(w, 'connection-state')).toContain('4 ms');
    expect(w.get('[role="status"]').text()).toContain('Swath 0.1.0');
  });

  it('shows Connecting… until the ping answers', async () => {
    let answer: (r: Result<{ reachable: boolean; latencyMs: number }>) => void = () => undefined;
    makeBridge({ servicePing: () => new Promise((resolve) => (answer = resolve)) });
    const w = await mountApp();
    expect(text(w, 'connection-state')).toContain('Connecting…');
    answer({ ok: true, data: { reachable: false, latencyMs: 5000 } });
    await flushPromises();
    expect(text(w, 'connection-state')).toContain('Unreachable');
  });

  it('shows an auth failure of the ping as unreachable with the reason', async () => {
    makeBridge({ servicePing: async () => ({ ok: false, error: { kind: 'auth', message: 'The service rejected the API key.' } }) });
    const w = await mountApp();
    const state = w.get('[data-testid="connection-state"]');
    expect(state.text()).toContain('Unreachable');
    expect(state.attributes('title')).toBe('The service rejected the API key.');
  });

  it('follows connection:state events from main and unsubscribes on unmount', async () => {
    const bridge = makeBridge();
    const w = await mountApp();
    bridge.push({ state: 'offline', detail: 'The service could not be reached.' });
    await flushPromises();
    expect(text(w, 'connection-state')).toContain('Unreachable');
    bridge.push({ state: 'online' });
    await flushPromises();
    expect(text(w, 'connection-state')).toContain('Connected');
    w.unmount();
    wrapper = null;
    expect(bridge.unsubscribe).toHaveBeenCalledOnce();
    expect(bridge.listeners.size).toBe(0);
  });

  it('reports a failed app:info instead of pretending', async () => {
    const bridge = makeBridge({ appInfo: async () => ({ ok: false, error: { kind: 'io', message: 'The demo service failed to start.' } }) });
    const w = await mountApp();
    expect(w.get('[role="alert"]').text()).toBe('The demo service failed to start.');
    expect(text(w, 'service-label')).toBe('No service');
    expect(text(w, 'connection-state')).toContain('Unreachable');
    expect(bridge.api.servicePing).not.toHaveBeenCalled();
  });

  it('lists every panel in the rail; each shows an honest empty state', async () => {
    makeBridge();
    const w = await mountApp();
    const items = w.findAll('nav[aria-label="Panels"] button');
    expect(items.map((b) => b.text())).toEqual(['Imagery', 'Tasking', 'Library', 'Products', 'Billing', 'Account', 'Settings']);
    expect(items[0]!.attributes('aria-current')).toBe('page');

    await items[4]!.trigger('click');
    expect(w.get('h1').text()).toBe('Billing');
    expect(items[4]!.attributes('aria-current')).toBe('page');
    expect(items[0]!.attributes('aria-current')).toBeUndefined();
    expect(w.get('[data-testid="empty-state"]').text()).toContain('Coming in a later release');
    // No placeholder offers a control that would pretend to work.
    expect(w.get('main').findAll('button, input, select, a')).toHaveLength(0);
  });
});
