import { defineAsyncComponent, defineComponent, h, onBeforeUnmount, reactive, ref, type AsyncComponentLoader, type Component } from 'vue';
import { contributions, type PanelContribution } from '../platform/contributions';
import type { ShortcutId } from '../platform/lib/shortcuts';
import type { PanelId } from '../platform/stores/ui';

/**
 * The left rail's panels, as the features contributed them (platform/contributions.ts). Each panel is
 * an async component, so its code loads on first use and never delays the map.
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

/** The panel's component with what other features fill its slots with (the panel never imports them). */
async function withFills(panel: PanelContribution): Promise<Component> {
  const component = asComponent(await panel.load());
  const fills = contributions.fills.filter((f) => f.panel === panel.id);
  if (!fills.length) return component;
  // Each block loads (with its code) only when the panel shows its slot; several features may fill
  // one slot (their blocks in contribution order).
  const slots = new Map<string, Component[]>();
  for (const f of fills) slots.set(f.slot, [...(slots.get(f.slot) ?? []), defineAsyncComponent(async () => asComponent(await f.load()))]);
  // The component itself: a loader's plain `{ default }` object is not taken for a module.
  // A slot's props (a scoped slot, e.g. the layer of a layer card) become the block's props.
  return { name: `${component.name ?? panel.id}WithFills`, render: () => h(component, null, Object.fromEntries([...slots].map(([slot, blocks]) => [slot, (props?: Record<string, unknown>) => blocks.map((block) => h(block, props ?? null))]))) };
}

const asComponent = (m: Component | { default: Component }): Component => ('default' in m ? m.default : m);

const defs = new Map<string, PanelDef>();

/** Every rail panel, in contribution order (the contributions are in: shell/features.ts). */
export function panels(): readonly PanelDef[] {
  return contributions.panels.map((p) => {
    let def = defs.get(p.id);
    if (!def) {
      def = { id: p.id, name: p.name, icon: p.icon, shortcut: `panel-${p.id}`, summary: p.summary, component: lazy(() => withFills(p)), ...(p.warm ? { warm: p.warm } : {}) };
      defs.set(p.id, def);
    }
    return def;
  });
}

/** A panel by id (the first one for an id not registered). */
export function panelById(id: PanelId): PanelDef {
  const all = panels();
  return all.find((p) => p.id === id) ?? all[0]!;
}
