// @vitest-environment jsdom
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Result } from '../../preload/contract';
import { bridgeStandIn, fail, makeBridge, ok } from './fake-bridge';
import App from '../../renderer/src/shell/App.vue';
import { loadPanel, loadedPanels, panelById } from '../../renderer/src/shell/panels';
import { mapState } from '../../renderer/src/platform/map/map-state';
import { LIBRARY_FIRST_PAGE } from '../../common/library-first-page';

const fake = bridgeStandIn();


// The shell's parts that load after the map's first frame, and the panels and stores these tests open, loaded once here so
// that mounting them is a microtask away and no lazy import is still loading when the file ends (the worker runs other files next).
await Promise.all([
  import('../../renderer/src/shell/AoiToolbar.vue'),
  import('../../renderer/src/platform/components/ContractBanner.vue'),
  import('../../renderer/src/platform/components/HelpOverlay.vue'),
  import('../../renderer/src/platform/components/ImportDialog.vue'),
  import('../../renderer/src/features/settings/views/KeyDialog.vue'),
  import('../../renderer/src/features/notifications/views/NotificationCards.vue'),
  import('../../renderer/src/platform/components/Toasts.vue'),
  import('../../renderer/src/features/downloads/views/DownloadsTray.vue'),
  import('../../renderer/src/features/imagery/views/ImageryPanel.vue'),
  import('../../renderer/src/features/billing/views/BillingPanel.vue'),
  import('../../renderer/src/features/account/views/AccountPanel.vue'),
  import('../../renderer/src/features/library/views/LibraryPanel.vue'),
  import('../../renderer/src/features/analysis/views/AnalysisBlock.vue'),
  import('../../renderer/src/features/watches/views/WatchesPanel.vue'),
  import('../../renderer/src/features/notifications/stores/notifications'),
  import('../../renderer/src/features/watches/stores/watches'),
]);

let wrapper: VueWrapper | null = null;
/** The mounted app's own store registry (the active one may be another test's: a late import of its shell sets it). */
let appPinia: Pinia | null = null;

async function mountApp(bridge = makeBridge(), mapReady = true): Promise<VueWrapper> {
  fake.api = bridge.api;
  const pinia = createPinia();
  setActivePinia(pinia);
  appPinia = pinia;
  // The OpenLayers map needs a real canvas; its behaviour is covered by the browser tests. Its first frame is this flag.
  mapState.ready = mapReady;
  wrapper = mount(App, { global: { plugins: [pinia], stubs: { MapView: true, Teleport: true } }, attachTo: document.body });
  await flushPromises();
  await new Promise((r) => setTimeout(r, 0));
  await flushPromises();
  // With the map drawn, the shell comes whole once the open panel's code is in (its module loads here).
  if (mapReady) await vi.waitFor(() => expect(wrapper!.get('.shell').attributes('data-shell')).toBe('full'), { timeout: 10_000 });
  await flushPromises();
  return wrapper;
}

const text = (w: VueWrapper, id: string): string => w.get(`[data-testid="${id}"]`).text();

afterEach(() => {
  wrapper?.unmount();
  wrapper = null;
  document.body.innerHTML = '';
});

describe('App shell', () => {
  it('starts the panel and the stores once the map has drawn its first frame, not before', async () => {
    const bridge = makeBridge();
    const w = await mountApp(bridge, false);
    // The rail is there at once; the panel's content and the first requests wait for the map.
    expect(w.findAll('nav[aria-label="Panels"] [data-panel]')).toHaveLength(9);
    expect(w.find('.side-body').element.children).toHaveLength(0);
    expect(bridge.api.appInfo).not.toHaveBeenCalled();
    expect(bridge.api.servicePing).not.toHaveBeenCalled();
    mapState.ready = true;
    await flushPromises();
    await new Promise((r) => setTimeout(r, 0));
    await flushPromises();
    expect(bridge.api.appInfo).toHaveBeenCalledOnce();
    expect(bridge.api.servicePing).toHaveBeenCalledOnce();
    await expect.poll(() => w.find('.side-body').element.children.length).toBeGreaterThan(0);
  });

  it('starts them at once when the analyst opens a panel before the map has drawn (by click or number key)', async () => {
    for (const open of [(w: VueWrapper) => w.get('nav[aria-label="Panels"] [data-panel="billing"]').trigger('click'), () => document.dispatchEvent(new KeyboardEvent('keydown', { key: '5', bubbles: true }))]) {
      const bridge = makeBridge();
      const w = await mountApp(bridge, false);
      expect(bridge.api.appInfo).not.toHaveBeenCalled();
      await open(w);
      await flushPromises();
      expect(bridge.api.appInfo).toHaveBeenCalledOnce();
      await expect.poll(() => w.find('.side-body').element.children.length).toBeGreaterThan(0);
      expect(w.get('#panel h1').text()).toBe('Billing');
      w.unmount();
      wrapper = null;
    }
  });

  it('starts them anyway when the map never draws a frame', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const bridge = makeBridge();
      fake.api = bridge.api;
      const pinia = createPinia();
      setActivePinia(pinia);
      mapState.ready = false;
      wrapper = mount(App, { global: { plugins: [pinia], stubs: { MapView: true, Teleport: true } }, attachTo: document.body });
      await vi.advanceTimersByTimeAsync(2_000);
      expect(bridge.api.appInfo).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(bridge.api.appInfo).toHaveBeenCalledOnce();
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows the demo service, connection, pointer and scale slots in the status bar', async () => {
    const bridge = makeBridge();
    const w = await mountApp(bridge);
    expect(bridge.api.appInfo).toHaveBeenCalledOnce();
    expect(bridge.api.servicePing).toHaveBeenCalledOnce();
    expect(text(w, 'service-label')).toBe('Demo service (offline)');
    expect(text(w, 'connection-state')).toContain('Connected');
    expect(text(w, 'connection-state')).toContain('4 ms');
    expect(text(w, 'pointer')).toContain('lon');
    expect(text(w, 'map-scale')).toMatch(/^1:/);
    expect(w.get('footer.status-bar').text()).toContain('Swath 0.1.0');
  });

  it('shows the base URL for a non-demo service', async () => {
    const w = await mountApp(makeBridge({ appInfo: async () => ok({ version: '0.1.0', platform: 'linux', service: { label: 'Prod', baseUrl: 'https://imagery.example.com', demo: false }, contractVersion: '1.0.0' }) }));
    expect(text(w, 'service-label')).toBe('https://imagery.example.com');
  });

  it('lists the nine panels in the rail and switches by click and by number key', async () => {
    const w = await mountApp();
    const items = w.findAll('nav[aria-label="Panels"] [data-panel]');
    expect(items.map((b) => b.text())).toEqual(['Imagery', 'Tasking', 'Library', 'Products', 'Billing', 'Account', 'Settings', 'Watches', 'Fields']);
    expect(items[0]!.attributes('aria-current')).toBe('page');
    expect(items[0]!.attributes('title')).toContain('(1)');
    await items[4]!.trigger('click');
    await flushPromises();
    expect(w.get('h1').text()).toBe('Billing');
    window.dispatchEvent(new KeyboardEvent('keydown', { key: '6' }));
    await flushPromises();
    expect(w.get('h1').text()).toBe('Account');
    expect(w.findAll('nav[aria-label="Panels"] [data-panel]')[5]!.attributes('aria-current')).toBe('page');
  });

  it('asks for a panel\'s code and first page as its rail button is pressed, before the click, and once', async () => {
    const bridge = makeBridge();
    const w = await mountApp(bridge);
    const query = vi.spyOn(bridge.api, 'libraryQuery');
    const button = w.get('nav[aria-label="Panels"] [data-panel="library"]');
    expect(loadedPanels.has('library')).toBe(false);
    // Not by another button than the primary one.
    await button.trigger('pointerdown', { button: 2 });
    expect(query).not.toHaveBeenCalled();
    await button.trigger('pointerdown', { button: 0 });
    expect(query).toHaveBeenCalledExactlyOnceWith({ ...LIBRARY_FIRST_PAGE });
    await vi.waitFor(() => expect(loadedPanels.has('library')).toBe(true));
    expect(w.get('h1').text()).toBe('Imagery');
    // The click shows the panel; its store takes the page asked ahead instead of asking again.
    await button.trigger('pointerdown', { button: 0 });
    await button.trigger('click');
    await vi.waitFor(() => expect(w.find('[data-testid="library-panel"]').exists()).toBe(true));
    await flushPromises();
    expect(query).toHaveBeenCalledOnce();
    // A panel with nothing to ask ahead loads its code only.
    await w.get('nav[aria-label="Panels"] [data-panel="watches"]').trigger('pointerdown', { button: 0 });
    expect(query).toHaveBeenCalledOnce();
  });

  it('never mounts a panel the analyst left before its code came; shows it once asked for again', async () => {
    // The Products panel's code is not loaded in this file: it loads when the rail asks for it.
    const w = await mountApp();
    const stores = () => Object.keys(appPinia!.state.value);
    await w.get('nav[aria-label="Panels"] [data-panel="products"]').trigger('click');
    // Its title at once, its place empty while the code loads.
    expect(w.get('#panel h1').text()).toBe('Products');
    expect(w.get('.side-body').text()).toBe('');
    expect(loadedPanels.has('products')).toBe(false);
    await w.get('nav[aria-label="Panels"] [data-panel="billing"]').trigger('click');
    expect(w.get('#panel h1').text()).toBe('Billing');
    // The code comes after the analyst moved on: nothing of the panel is set up out of sight (its store is made by its setup).
    await loadPanel(panelById('products'));
    await flushPromises();
    expect(loadedPanels.has('products')).toBe(true);
    expect(stores()).not.toContain('products');
    expect(w.find('[data-testid="billing-panel"]').exists()).toBe(true);
    await w.get('nav[aria-label="Panels"] [data-panel="products"]').trigger('click');
    await vi.waitFor(() => expect(w.find('[data-testid="products-panel"]').exists()).toBe(true));
    expect(stores()).toContain('products');
  });

  it('opens the shortcuts overlay with "?"', async () => {
    const w = await mountApp();
    window.dispatchEvent(new KeyboardEvent('keydown', { key: '?', shiftKey: true }));
    await flushPromises();
    const overlay = w.get('[data-testid="help-overlay"]');
    expect(overlay.text()).toContain('Draw a polygon AOI');
    expect(overlay.text()).toContain('Copy the AOI as GeoJSON');
  });

  it('opens the key dialog when the service refuses the key', async () => {
    const w = await mountApp(makeBridge({ servicePing: async () => fail('auth', 'The service rejected the API key (HTTP 403).') }));
    const dialog = w.get('[data-testid="key-dialog"]');
    expect(dialog.text()).toContain('The service refused the API key');
    expect(dialog.text()).toContain('HTTP 403');
    const input = dialog.get('[data-testid="key-input"]');
    expect(input.attributes('type')).toBe('password');
    expect(text(w, 'connection-state')).toContain('Unreachable');
  });

  it('shows a contract notice from main', async () => {
    const bridge = makeBridge();
    const w = await mountApp(bridge);
    bridge.emit('contract:notice', { expected: '1.0.0', actual: '2.0.0', message: 'The service publishes contract 2.0.0.' });
    await flushPromises();
    expect(text(w, 'contract-notice')).toContain('2.0.0');
  });

  it('reports a failed app:info instead of pretending', async () => {
    const bridge = makeBridge({ appInfo: async (): Promise<Result<never>> => fail('io', 'The demo service failed to start.') });
    const w = await mountApp(bridge);
    expect(w.get('.banner[role="alert"]').text()).toBe('The demo service failed to start.');
    expect(text(w, 'service-label')).toBe('No service');
    expect(text(w, 'connection-state')).toContain('Unreachable');
    expect(bridge.api.servicePing).not.toHaveBeenCalled();
  });

  it('follows connection:state events and unsubscribes on unmount', async () => {
    const bridge = makeBridge();
    const w = await mountApp(bridge);
    bridge.emit('connection:state', { state: 'offline', detail: 'The service could not be reached.' });
    await flushPromises();
    expect(text(w, 'connection-state')).toContain('Unreachable');
    w.unmount();
    wrapper = null;
    expect(bridge.listeners.get('connection:state')!.size).toBe(0);
  });
});
