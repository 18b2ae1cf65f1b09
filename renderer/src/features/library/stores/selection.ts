import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import { LIBRARY_SELECTION_MAX } from '../../../../../common/library-selection';
import { ask, listen as listenTo } from '../../../platform/request';
import { EMPTY_SELECTION, extendTo, rangeOf, reordered, selectAll, selectedIds, selectOnly, toggle, withoutIds, type Selection, type SelectionRow } from '../model/selection';
import { useLibraryStore } from './library';

/** Rows per `library:query` when a range or Ctrl+A reaches past the list's window (main's page). */
const PAGE = 500;

/**
 * The Library's selection (model/selection.ts) over the list's rows: a range beyond the rows the
 * list holds is asked of main page by page, with the list's filters and order. Rows the filters
 * hide stay selected (`hidden` counts their rasters, as main counts them); rasters removed from the
 * library leave it. What other features do with it (a film, a brief) they get as the `selection`
 * slot's props, never from here.
 */
export const useSelectionStore = defineStore('library-selection', () => {
  const library = useLibraryStore();
  const selection = shallowRef<Selection>(EMPTY_SELECTION);
  const ids = computed(() => selectedIds(selection.value));
  /** Selected rasters the filters hide (0 when nothing filters). */
  const hidden = ref(0);
  const error = ref<string | null>(null);

  const rowOf = (i: number): SelectionRow | null => {
    const e = library.rowAt(i);
    if (!e) return null;
    const g = e.series ? library.groups.find((x) => x.key === e.series) : undefined;
    return g ? { key: g.key, ids: g.entries.map((m) => m.id) } : { key: e.id, ids: [e.id] };
  };

  /** Rows `from`..`to` (both in) of the list: from its window where it holds them, else from main. */
  async function rowsIn(from: number, to: number): Promise<SelectionRow[]> {
    const held = Array.from({ length: to - from + 1 }, (_, k) => rowOf(from + k));
    if (held.every((r) => r)) return held as SelectionRow[];
    const out: SelectionRow[] = [];
    for (let offset = from; offset <= to; offset += PAGE) {
      const r = await ask((bridge) => bridge.libraryQuery({ ...library.shownQuery(offset), limit: Math.min(PAGE, to - offset + 1), series: true }));
      if (!r.ok) throw new Error(r.error.message);
      const groups = new Map(r.data.series.map((g) => [g.key, g.entries.map((m) => m.id)]));
      for (const e of r.data.entries) out.push(e.series && groups.has(e.series) ? { key: e.series, ids: groups.get(e.series)! } : { key: e.id, ids: [e.id] });
      if (r.data.entries.length === 0) break;
    }
    return out;
  }

  /** A click on row `index`: alone, toggled (Ctrl/Cmd) or a range from the anchor (Shift; with Ctrl/Cmd added). */
  async function click(index: number, mods: { toggle: boolean; range: boolean }): Promise<void> {
    const row = rowOf(index);
    if (!row) return;
    error.value = null;
    try {
      if (mods.range && selection.value.anchor) {
        const [a, b] = rangeOf(selection.value, index);
        const before = selection.value;
        const range = await rowsIn(a, b);
        if (selection.value === before) selection.value = extendTo(before, range, mods.toggle, LIBRARY_SELECTION_MAX);
      } else if (mods.toggle) selection.value = toggle(selection.value, row, index, LIBRARY_SELECTION_MAX);
      else selection.value = selectOnly(row, index, LIBRARY_SELECTION_MAX);
    } catch (e) {
      error.value = e instanceof Error ? e.message : String(e);
    }
  }

  /** Ctrl+A: every row the list shows, within the most a selection holds. */
  async function all(): Promise<void> {
    error.value = null;
    try {
      const before = selection.value;
      const rows = library.rows ? await rowsIn(0, library.rows - 1) : [];
      if (selection.value === before) selection.value = selectAll(rows, LIBRARY_SELECTION_MAX);
    } catch (e) {
      error.value = e instanceof Error ? e.message : String(e);
    }
  }

  function clear(): void {
    selection.value = EMPTY_SELECTION;
    error.value = null;
  }

  const isSelected = (key: string): boolean => selection.value.rows.has(key);

  // A new filter or order: the selection stays, a Shift range starts again from a click.
  watch([() => ({ ...library.filter }), () => library.sort], () => (selection.value = reordered(selection.value)), { deep: true });
  // Rasters removed from the library leave the selection.
  let off: (() => void) | null = null;
  function listen(): void {
    off ??= listenTo('library:changed', ({ removed }) => (selection.value = withoutIds(selection.value, new Set(removed))));
  }

  // How many selected rasters the filters hide, as main counts them (the list's "N of M rasters").
  let asked = 0;
  watch([ids, () => library.filtering, () => JSON.stringify(library.filter)], async ([list, filtering]) => {
    const mine = ++asked;
    if (!filtering || list.length === 0) {
      hidden.value = 0;
      return;
    }
    const r = await ask((bridge) => bridge.libraryQuery({ ...library.shownQuery(0), ids: list.slice(0, LIBRARY_SELECTION_MAX), limit: 1, series: false }));
    if (mine === asked && r.ok) hidden.value = list.length - r.data.total;
  });

  return { selection, ids, hidden, error, isSelected, click, all, clear, listen };
});
