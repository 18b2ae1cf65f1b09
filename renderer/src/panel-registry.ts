import { defineAsyncComponent, defineComponent, h, onBeforeUnmount, reactive, ref, type AsyncComponentLoader, type Component } from 'vue';
import { askFirstPageAhead } from './features/library/stores/first-page-ahead';
import type { ShortcutId } from './platform/lib/shortcuts';
import type { PanelId } from './platform/stores/ui';

/**
 * The left rail's panels, in order. Each panel is an async component, so its
 * code (and that of the colleagues' Tasking and Library panels) loads on first
 * use and never delays the map.
 */
export interface PanelDef {
  id: PanelId;
  name: string;
  /** Icon name of platform/components/Icon.vue. */
  icon: string;
  shortcut: ShortcutId;
  summary: string;
  component: Component;
  /** What the panel shows first, asked of main as its code is asked for (once, before its first mount). */
  warm?: () => void;
}

/** A load shorter than this shows no spinner (no flash). */
const LOADING_DELAY_MS = 120;
const Loading: Component = { name: 'PanelLoading', render: () => h('p', { class: 'empty' }, [h('span', { class: 'spinner' }), ' Loading…']) };
const Failed: Component = { name: 'PanelFailed', render: () => h('p', { class: 'empty' }, 'This panel failed to load. Reload the window (Ctrl+R).') };

/** Each panel's loader, by its component (see {@link loadPanel}). */
const loaders = new WeakMap<Component, AsyncComponentLoader>();

function lazy(loader: AsyncComponentLoader): Component {
  const component = defineAsyncComponent({ loader, loadingComponent: Loading, errorComponent: Failed, delay: LOADING_DELAY_MS });
  loaders.set(component, loader);
  return component;
}

/**
 * The panels whose code is in (or failed to load: their component then says so). The shell shows a
 * panel once it is here, so a panel left before its code came is never mounted out of sight.
 */
export const loadedPanels: ReadonlySet<PanelId> = reactive(new Set<PanelId>());

/** Each panel's load under way or done. */
const loading = new Map<PanelId, Promise<void>>();

/**
 * Loads a panel's code (what showing it waits for), once: the first call also asks main for what the
 * panel shows first ({@link PanelDef.warm}), so both come together. Called as the rail's button is
 * pressed, before the click, and when a panel is opened.
 */
export function loadPanel(panel: PanelDef): Promise<void> {
  let load = loading.get(panel.id);
  if (!load) {
    try {
      panel.warm?.();
    } catch {
      // Nothing asked ahead (no bridge yet): the panel asks for itself once mounted.
    }
    // A load that failed stays failed: the async component keeps its failed request and says so (reload the window).
    load = Promise.resolve(loaders.get(panel.component)?.())
      .then(() => undefined)
      .finally(() => (loadedPanels as Set<PanelId>).add(panel.id));
    loading.set(panel.id, load);
  }
  return load;
}

/** What the panel's place shows while its code loads: nothing at first, the spinner once it takes a while. */
export const PanelPending: Component = defineComponent({
  name: 'PanelPending',
  setup() {
    const late = ref(false);
    const timer = setTimeout(() => (late.value = true), LOADING_DELAY_MS);
    onBeforeUnmount(() => clearTimeout(timer));
    return () => (late.value ? h(Loading) : null);
  },
});

// Time series and change layers (the Analysis feature), in the Library panel's `analysis` slot: loaded with their
// chart only when the panel shows them (the library has rasters).
const AnalysisBlock = defineAsyncComponent(() => import('./features/analysis/views/AnalysisBlock.vue'));

/** The Library panel with the Analysis block in its slot (the component itself: a loader's plain `{ default }` object is not taken for a module). */
async function libraryPanel(): Promise<Component> {
  const { default: LibraryPanel } = await import('./features/library/views/LibraryPanel.vue');
  return { name: 'LibraryWithAnalysis', render: () => h(LibraryPanel, null, { analysis: () => h(AnalysisBlock) }) };
}

/** Every rail panel. */
export const panels: readonly PanelDef[] = [
  {
    id: 'imagery',
    name: 'Imagery',
    icon: 'imagery',
    shortcut: 'panel-1',
    summary: 'Search dates, check, estimate and download composites, tiles and mini-tiles.',
    component: lazy(() => import('./features/imagery/views/ImageryPanel.vue')),
  },
  {
    id: 'tasking',
    name: 'Tasking',
    icon: 'tasking',
    shortcut: 'panel-2',
    summary: 'Estimate, create, track and cancel tasking orders.',
    component: lazy(() => import('./features/tasking/views/TaskingPanel.vue')),
  },
  {
    id: 'library',
    name: 'Library',
    icon: 'library',
    shortcut: 'panel-3',
    summary: 'Local rasters, previewed on the map without a network.',
    component: lazy(libraryPanel),
    warm: askFirstPageAhead,
  },
  {
    id: 'products',
    name: 'Products',
    icon: 'products',
    shortcut: 'panel-4',
    summary: 'Satellite products and planned acquisitions over the AOI.',
    component: lazy(() => import('./features/products/views/ProductsPanel.vue')),
  },
  {
    id: 'billing',
    name: 'Billing',
    icon: 'billing',
    shortcut: 'panel-5',
    summary: 'Monthly summary, orders and transactions, vouchers.',
    component: lazy(() => import('./features/billing/views/BillingPanel.vue')),
  },
  {
    id: 'account',
    name: 'Account',
    icon: 'account',
    shortcut: 'panel-6',
    summary: 'Details, settings and request limits of the key in use.',
    component: lazy(() => import('./features/account/views/AccountPanel.vue')),
  },
  {
    id: 'settings',
    name: 'Settings',
    icon: 'settings',
    shortcut: 'panel-7',
    summary: 'Service profiles and keys, download folder, theme, map layers.',
    component: lazy(() => import('./features/settings/views/SettingsPanel.vue')),
  },
  {
    id: 'watches',
    name: 'Watches',
    icon: 'watch',
    shortcut: 'panel-8',
    summary: 'Keep the library complete for an order or an area: every new date downloaded, within a budget.',
    component: lazy(() => import('./features/watches/views/WatchesPanel.vue')),
  },
];

/** A panel by id. */
export function panelById(id: PanelId): PanelDef {
  return panels.find((p) => p.id === id) ?? panels[0]!;
}
