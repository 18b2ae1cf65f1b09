import { onBeforeUnmount, onMounted } from 'vue';

/**
 * Keyboard shortcuts: one catalogue (shown in tooltips and the "?" overlay)
 * and handlers that components register while they are mounted.
 */

/** One entry of the catalogue. */
export interface ShortcutInfo {
  keys: string;
  /** Its group in the "?" overlay, e.g. 'Panels', 'Go to', 'Map & AOI', 'General'. */
  group: string;
  description: string;
}

/** The platform's own shortcuts, by id; the features add theirs (platform/contributions.ts). */
export const SHORTCUTS = {
  'toggle-panel': { keys: '\\', group: 'Panels', description: 'Show or hide the side panel' },
  'toggle-downloads': { keys: 'D', group: 'Panels', description: 'Show or hide the downloads tray' },
  // Alt+letter works in text fields too; it focuses the action (Enter runs it). Not F, E, V, W or H: the window menu's.
  'go-aoi': { keys: 'Alt+A', group: 'Go to', description: 'Type an AOI: WKT, GeoJSON or a bounding box' },
  'go-open-download': { keys: 'Alt+L', group: 'Go to', description: 'Downloads: Open the newest finished download on the map' },
  'go-map': { keys: 'Alt+K', group: 'Go to', description: 'The map (arrows pan, Enter reads the pixel at the centre)' },
  'draw-polygon': { keys: 'P', group: 'Map & AOI', description: 'Draw a polygon AOI (double-click to finish)' },
  'draw-rectangle': { keys: 'R', group: 'Map & AOI', description: 'Draw a rectangle AOI' },
  'edit-aoi': { keys: 'E', group: 'Map & AOI', description: 'Edit AOI vertices on/off (Alt+click removes a vertex)' },
  'import-aoi': { keys: 'I', group: 'Map & AOI', description: 'Type or paste an AOI: WKT, GeoJSON or a bounding box' },
  'open-aoi': { keys: 'O', group: 'Map & AOI', description: 'Open a .geojson, .json or .wkt file' },
  'copy-wkt': { keys: 'C', group: 'Map & AOI', description: 'Copy the AOI as WKT' },
  'copy-geojson': { keys: 'Shift+C', group: 'Map & AOI', description: 'Copy the AOI as GeoJSON' },
  'zoom-aoi': { keys: 'Z', group: 'Map & AOI', description: 'Zoom to the AOI' },
  'clear-aoi': { keys: 'Shift+Delete', group: 'Map & AOI', description: 'Clear the AOI' },
  'undo-vertex': { keys: 'Backspace', group: 'Map & AOI', description: 'Remove the last vertex while drawing' },
  cancel: { keys: 'Escape', group: 'General', description: 'Cancel drawing, close a dialog' },
  help: { keys: '?', group: 'General', description: 'Show this list of shortcuts' },
} as const satisfies Record<string, ShortcutInfo>;

/** Id of a catalogued shortcut: the platform's ({@link SHORTCUTS}) or one a feature contributed. */
export type ShortcutId = string;

/** The catalogue: every shortcut of the window, by id, in the order they were added. */
const catalogue = new Map<ShortcutId, ShortcutInfo>(Object.entries(SHORTCUTS));

/** Every catalogued shortcut, by id. */
export function shortcutCatalogue(): ReadonlyMap<ShortcutId, ShortcutInfo> {
  return catalogue;
}

/**
 * Adds a shortcut to the catalogue; refuses an id or keys already taken. With `dryRun`, only checks.
 * Features add theirs through platform/contributions.ts.
 */
export function addShortcut(id: ShortcutId, info: ShortcutInfo, { dryRun = false } = {}): void {
  if (catalogue.has(id)) throw new Error(`the shortcut id "${id}" is already taken`);
  const clash = [...catalogue].find(([, s]) => s.keys === info.keys);
  if (clash) throw new Error(`${id}: the keys ${info.keys} are already ${clash[0]}'s`);
  if (!dryRun) catalogue.set(id, info);
}

/** "Draw polygon (P)": a tooltip with the shortcut (the label alone for an id not catalogued). */
export function tip(label: string, id: ShortcutId): string {
  const s = catalogue.get(id);
  return s ? `${label} (${s.keys})` : label;
}

interface Parsed {
  key: string;
  shift: boolean;
  ctrl: boolean;
  alt: boolean;
}

function parse(keys: string): Parsed {
  const parts = keys.split('+');
  const key = parts.pop()!;
  return { key: key.toLowerCase(), shift: parts.includes('Shift'), ctrl: parts.includes('Ctrl'), alt: parts.includes('Alt') };
}

/** True when a key event is the given shortcut. */
export function matches(event: KeyboardEvent, id: ShortcutId): boolean {
  const info = catalogue.get(id);
  if (!info) return false;
  const p = parse(info.keys);
  const key = event.key.toLowerCase();
  // With Alt a layout may type another character (macOS: Option+S is ß): the physical key counts then.
  if (key !== p.key && !(p.alt && /^[a-z]$/.test(p.key) && event.code === `Key${p.key.toUpperCase()}`)) return false;
  if ((event.ctrlKey || event.metaKey) !== p.ctrl || event.altKey !== p.alt) return false;
  // Punctuation such as "?" already implies Shift on most layouts.
  const punctuation = p.key.length === 1 && !/[a-z0-9]/.test(p.key);
  return punctuation || event.shiftKey === p.shift;
}

type Handler = (event: KeyboardEvent) => void;
const handlers = new Map<ShortcutId, Handler[]>();

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.tagName !== 'string') return false;
  const tag = el.tagName.toLowerCase();
  if (tag === 'textarea' || tag === 'select' || el.isContentEditable) return true;
  if (tag !== 'input') return false;
  const type = (el as HTMLInputElement).type;
  return !['checkbox', 'radio', 'button', 'submit', 'range'].includes(type);
}

/** Dispatches a keydown to the newest handler of the matching shortcut; exported for tests. */
export function dispatchShortcut(event: KeyboardEvent): boolean {
  for (const [id, list] of handlers) {
    if (!list.length || !matches(event, id)) continue;
    const p = parse(catalogue.get(id)!.keys);
    // While typing, only Escape, Ctrl and Alt combinations act; letters belong to the field.
    if (typingIn(event.target) && p.key !== 'escape' && !p.ctrl && !p.alt) continue;
    event.preventDefault();
    list[list.length - 1]!(event);
    return true;
  }
  return false;
}

/** Registers a handler for a shortcut; returns the function that removes it. */
export function onShortcut(id: ShortcutId, handler: Handler): () => void {
  const list = handlers.get(id) ?? [];
  list.push(handler);
  handlers.set(id, list);
  return () => {
    const l = handlers.get(id) ?? [];
    const i = l.lastIndexOf(handler);
    if (i >= 0) l.splice(i, 1);
  };
}

/** Registers shortcut handlers for the lifetime of the calling component. */
export function useShortcuts(map: Partial<Record<ShortcutId, Handler>>): void {
  let offs: (() => void)[] = [];
  onMounted(() => {
    offs = Object.entries(map).map(([id, h]) => onShortcut(id as ShortcutId, h as Handler));
  });
  onBeforeUnmount(() => offs.forEach((off) => off()));
}

/** Listens for shortcuts on the window; returns the function that stops listening. */
export function installShortcutListener(target: Window = window): () => void {
  const listener = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.isComposing) return;
    dispatchShortcut(e);
  };
  target.addEventListener('keydown', listener);
  return () => target.removeEventListener('keydown', listener);
}
