import type OlMap from 'ol/Map';
import type { Component } from 'vue';
import { addShortcut, type ShortcutInfo } from './lib/shortcuts';

/**
 * The registries the platform owns. A feature never gets called into by the shell or the platform:
 * it hands one {@link Contribution} (its `features/<feature>/contribution.ts`, default export) to
 * {@link contribute}, and the shell (`renderer/src/shell/features.ts`, the one list of contributions
 * it loads, in rail order) reads what was contributed. The map never imports a feature: a feature
 * adds its layers to the map (OpenLayers' way), and the platform's views show what is registered.
 *
 * The API, all of it:
 * - `contribute(c)`: registers a feature's contribution; refuses (throws, naming the field and the
 *   reason) a duplicate feature name, panel id, shortcut id or keys, map layer id or status item id,
 *   and a second keeper of the saved view.
 * - `contributions`: what is registered, read-only: `features` (their names), `panels`, `shortcuts`,
 *   `mapLayers`, `startViews`, `savedViews`, `statusItems`, `fills`, `starts`, each in the order the
 *   features were contributed.
 * - `hasPanel(id)`: whether a panel of that id is registered (ids from outside, e.g. a notification's target).
 *
 * A new feature: `features/<feature>/contribution.ts` (`export default { feature: '<feature>', … } satisfies
 * Contribution`), and its import and entry in `shell/features.ts`; nothing else of the shell changes.
 *
 * A contribution.ts is imported when the window opens: it imports its feature's code with `import()`
 * (panels, stores it does not need at once), statically only what the first paint shows anyway, so
 * the first paint stays the map.
 */

/** A rail panel. Its shortcut is registered as `panel-<id>` in the "Panels" group. */
export interface PanelContribution {
  /** A string id, unique among the panels (`ui.goTo(id)` opens it). */
  id: string;
  name: string;
  /** Icon name of platform/components/Icon.vue. */
  icon: string;
  /** The key that opens the panel, e.g. `'1'`. */
  keys: string;
  summary: string;
  /** The panel's component, loaded on first use (a spinner shows if it takes a while). */
  load: () => Promise<Component | { default: Component }>;
  /** What the panel shows first, asked of main as its code is asked for (once, before its first mount). */
  warm?: () => void;
}

/**
 * A shortcut of the "?" catalogue. With `focus`, pressing it opens the feature's panel and focuses the
 * control of that test id (in `tab`, if the panel has tabs), or says why it cannot (`missing`: what to
 * do first when the control is not shown). Without it, a view handles it while mounted (`useShortcuts`).
 */
export interface ShortcutContribution extends ShortcutInfo {
  id: string;
  focus?: { panel: string; testid: string; tab?: string; missing?: string };
}

/**
 * A layer (or a set of them) the feature adds to the map once it is made; `install` returns what
 * removes it. The map builds and fetches none of a feature's layers: the platform's map has the
 * offline basemap and the generic services (vector-layers, raster-layers, the map context), and
 * a layer whose code is large loads it itself when first shown.
 */
export interface MapLayerContribution {
  id: string;
  install: (map: OlMap) => () => void;
}

/**
 * Where a first start (no saved view yet) may move the map: the geometries (WKT or GeoJSON) the
 * feature knows the analyst works on. `shown` runs when the map went there.
 */
export interface StartViewContribution {
  areas: () => Promise<readonly unknown[]>;
  shown?: () => void;
}

/** Where the map's last view is kept between starts (one feature keeps it). */
export interface SavedViewContribution {
  load: () => Promise<{ center: [number, number]; zoom: number } | null>;
  save: (view: { center: [number, number]; zoom: number }) => unknown;
}

/** An item of the status bar, after the connection. */
export interface StatusItemContribution {
  id: string;
  component: Component;
}

/** A block of this feature shown in a slot of another feature's panel (the panel never imports it). */
export interface FillContribution {
  panel: string;
  slot: string;
  load: () => Promise<Component | { default: Component }>;
}

/** What one feature adds to the window. Every field but `feature` is optional. */
export interface Contribution {
  /** The feature's folder name. */
  feature: string;
  panel?: PanelContribution;
  shortcuts?: readonly ShortcutContribution[];
  mapLayers?: readonly MapLayerContribution[];
  startView?: StartViewContribution;
  savedView?: SavedViewContribution;
  statusItems?: readonly StatusItemContribution[];
  fills?: readonly FillContribution[];
  /** Runs once as the shell starts (after the map's first frame): stores that listen or poll whatever panel is open. */
  start?: () => void;
}

const registered = {
  features: [] as string[],
  panels: [] as PanelContribution[],
  shortcuts: [] as ShortcutContribution[],
  mapLayers: [] as MapLayerContribution[],
  startViews: [] as StartViewContribution[],
  savedViews: [] as SavedViewContribution[],
  statusItems: [] as StatusItemContribution[],
  fills: [] as FillContribution[],
  starts: [] as (() => void)[],
};

/** What is registered, in contribution order. */
export const contributions: { readonly [K in keyof typeof registered]: readonly (typeof registered)[K][number][] } = registered;

function refuse(feature: string, field: string, reason: string): never {
  throw new Error(`Contribution of ${feature}: ${field} ${reason}`);
}

/** Registers a feature's contribution (see the file's header); refuses duplicates before registering anything. */
export function contribute(c: Contribution): void {
  if (!c.feature) refuse('(unnamed)', 'feature', 'is empty');
  if (registered.features.includes(c.feature)) refuse(c.feature, 'feature', 'is already contributed');
  if (c.panel) {
    if (!c.panel.id) refuse(c.feature, 'panel.id', 'is empty');
    if (hasPanel(c.panel.id)) refuse(c.feature, 'panel.id', `"${c.panel.id}" is already a panel`);
  }
  const ids = (list: readonly { id: string }[] | undefined, taken: readonly { id: string }[], field: string) => {
    const seen = new Set(taken.map((t) => t.id));
    for (const { id } of list ?? []) {
      if (seen.has(id)) refuse(c.feature, field, `"${id}" is already registered`);
      seen.add(id);
    }
  };
  if (c.savedView && registered.savedViews.length) refuse(c.feature, 'savedView', 'is already kept by another feature');
  ids(c.mapLayers, registered.mapLayers, 'mapLayers.id');
  ids(c.statusItems, registered.statusItems, 'statusItems.id');
  const shortcuts: ShortcutContribution[] = [
    ...(c.panel ? [{ id: `panel-${c.panel.id}`, keys: c.panel.keys, group: 'Panels', description: `${c.panel.name} panel` }] : []),
    ...(c.shortcuts ?? []),
  ];
  // The catalogue refuses a taken id or keys; a refusal leaves what was added before it, so check first.
  ids(shortcuts, registered.shortcuts, 'shortcuts.id');
  const keys = new Set<string>();
  for (const s of shortcuts) {
    if (keys.has(s.keys)) refuse(c.feature, 'shortcuts', `${s.id}: the keys ${s.keys} are taken twice`);
    keys.add(s.keys);
    try {
      addShortcut(s.id, { keys: s.keys, group: s.group, description: s.description }, { dryRun: true });
    } catch (e) {
      refuse(c.feature, 'shortcuts', (e as Error).message);
    }
  }
  for (const s of shortcuts) addShortcut(s.id, { keys: s.keys, group: s.group, description: s.description });
  registered.features.push(c.feature);
  if (c.panel) registered.panels.push(c.panel);
  registered.shortcuts.push(...shortcuts);
  registered.mapLayers.push(...(c.mapLayers ?? []));
  if (c.startView) registered.startViews.push(c.startView);
  if (c.savedView) registered.savedViews.push(c.savedView);
  registered.statusItems.push(...(c.statusItems ?? []));
  registered.fills.push(...(c.fills ?? []));
  if (c.start) registered.starts.push(c.start);
}

/** Whether a panel of this id is registered. */
export function hasPanel(id: string): boolean {
  return registered.panels.some((p) => p.id === id);
}
