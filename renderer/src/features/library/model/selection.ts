/**
 * The Library's selection of rows, as a file manager has it: a click selects one row, Ctrl/Cmd+click
 * toggles one, Shift+click selects the range from the anchor (the row last clicked or toggled), Ctrl+A
 * every row the list shows. A row is a raster or a time series (all its dates). The selection is kept
 * by row key, so it lives on while the list scrolls (rows drawn again) or is filtered: rows the
 * filters hide stay selected, and what is done with the selection takes them too. Pure: the store
 * holds one and finds the rows of a range.
 */

/** A row of the list: its key (a raster's id, or a series' key) and the rasters it stands for. */
export interface SelectionRow {
  key: string;
  ids: readonly string[];
}

export interface Selection {
  /** Selected rows by key, in the order they were selected. */
  readonly rows: ReadonlyMap<string, readonly string[]>;
  /** The anchor of a Shift range: the row's key and its index when it was set. */
  readonly anchor: { key: string; index: number } | null;
  /** Rows left out because the selection would have held more than its most rasters. */
  readonly capped: number;
}

export const EMPTY_SELECTION: Selection = { rows: new Map(), anchor: null, capped: 0 };

/** The rasters a selection stands for, each once, in selection order. */
export function selectedIds(s: Selection): string[] {
  return [...new Set([...s.rows.values()].flat())];
}

/** Adds rows to `base` in order while the rasters stay within `max`; counts the rows that did not fit. */
function adding(base: ReadonlyMap<string, readonly string[]>, rows: readonly SelectionRow[], max: number): { rows: Map<string, readonly string[]>; capped: number } {
  const out = new Map(base);
  const ids = new Set([...out.values()].flat());
  let capped = 0;
  for (const r of rows) {
    if (out.has(r.key)) continue;
    const fresh = r.ids.filter((id) => !ids.has(id));
    if (ids.size + fresh.length > max) {
      capped++;
      continue;
    }
    out.set(r.key, r.ids);
    for (const id of fresh) ids.add(id);
  }
  return { rows: out, capped };
}

/** A plain click: this row alone, and the anchor. */
export function selectOnly(row: SelectionRow, index: number, max: number): Selection {
  const { rows, capped } = adding(new Map(), [row], max);
  return { rows, anchor: { key: row.key, index }, capped };
}

/** Ctrl/Cmd+click or Space: this row in or out; the anchor moves to it. */
export function toggle(s: Selection, row: SelectionRow, index: number, max: number): Selection {
  if (s.rows.has(row.key)) {
    const rows = new Map(s.rows);
    rows.delete(row.key);
    return { rows, anchor: { key: row.key, index }, capped: 0 };
  }
  const { rows, capped } = adding(s.rows, [row], max);
  return { rows, anchor: { key: row.key, index }, capped };
}

/**
 * Shift+click: the rows from the anchor to the row clicked (`range`, in list order, both ends in).
 * Without Ctrl/Cmd the range replaces the selection; with it, the range is added. The anchor stays.
 * Without an anchor the row clicked is selected alone.
 */
export function extendTo(s: Selection, range: readonly SelectionRow[], add: boolean, max: number): Selection {
  const { rows, capped } = adding(add ? s.rows : new Map(), range, max);
  return { rows, anchor: s.anchor, capped };
}

/** The indices a Shift range covers, from the anchor to `index` (the row alone when there is no anchor). */
export function rangeOf(s: Selection, index: number): [number, number] {
  const from = s.anchor?.index ?? index;
  return [Math.min(from, index), Math.max(from, index)];
}

/** Ctrl+A: every row the list shows (within the most rasters; the anchor is the first row). */
export function selectAll(rows: readonly SelectionRow[], max: number): Selection {
  const added = adding(new Map(), rows, max);
  return { ...added, anchor: rows[0] ? { key: rows[0].key, index: 0 } : null };
}

/** The filters or order changed: the selection stays, the anchor's index no longer holds. */
export function reordered(s: Selection): Selection {
  return s.anchor ? { ...s, anchor: null } : s;
}

/** Rasters removed from the library leave the selection (a series row keeps its other dates). */
export function withoutIds(s: Selection, gone: ReadonlySet<string>): Selection {
  if (!gone.size || !selectedIds(s).some((id) => gone.has(id))) return s;
  const rows = new Map<string, readonly string[]>();
  for (const [key, ids] of s.rows) {
    const kept = ids.filter((id) => !gone.has(id));
    if (kept.length) rows.set(key, kept);
  }
  return { rows, anchor: s.anchor && rows.has(s.anchor.key) ? s.anchor : null, capped: s.capped };
}
