import { describe, expect, it } from 'vitest';
import { EMPTY_SELECTION, extendTo, rangeOf, reordered, selectAll, selectedIds, selectOnly, toggle, withoutIds, type SelectionRow } from '../../../../renderer/src/features/library/model/selection';

// The Library's selection as a file manager has it: click, Ctrl/Cmd+click, Shift+click from the
// anchor, Ctrl+A; kept by row key through filtering, the anchor dropped; removed rasters leave it.

const rows: SelectionRow[] = [
  { key: 'a', ids: ['a'] },
  { key: 'series-1', ids: ['s1', 's2', 's3'] },
  { key: 'b', ids: ['b'] },
  { key: 'c', ids: ['c'] },
  { key: 'd', ids: ['d'] },
];
const MAX = 500;

describe('library selection model', () => {
  it('a click selects one row; Ctrl/Cmd+click toggles and moves the anchor', () => {
    let s = selectOnly(rows[2]!, 2, MAX);
    expect([...s.rows.keys()]).toEqual(['b']);
    s = toggle(s, rows[1]!, 1, MAX);
    expect(selectedIds(s)).toEqual(['b', 's1', 's2', 's3']);
    expect(s.anchor).toEqual({ key: 'series-1', index: 1 });
    s = toggle(s, rows[2]!, 2, MAX);
    expect([...s.rows.keys()]).toEqual(['series-1']);
    s = selectOnly(rows[4]!, 4, MAX);
    expect([...s.rows.keys()]).toEqual(['d']);
  });

  it('Shift+click selects the range from the anchor, either way; with Ctrl/Cmd it adds the range', () => {
    let s = selectOnly(rows[3]!, 3, MAX);
    expect(rangeOf(s, 1)).toEqual([1, 3]);
    s = extendTo(s, rows.slice(1, 4), false, MAX);
    expect([...s.rows.keys()]).toEqual(['series-1', 'b', 'c']);
    expect(s.anchor).toEqual({ key: 'c', index: 3 });
    // A second Shift+click from the same anchor replaces the range.
    expect(rangeOf(s, 4)).toEqual([3, 4]);
    expect([...extendTo(s, rows.slice(3, 5), false, MAX).rows.keys()]).toEqual(['c', 'd']);
    // Ctrl+Shift adds it to what is selected.
    s = toggle(selectOnly(rows[0]!, 0, MAX), rows[3]!, 3, MAX);
    expect([...extendTo(s, rows.slice(3, 5), true, MAX).rows.keys()]).toEqual(['a', 'c', 'd']);
    // No anchor: the row alone.
    expect(rangeOf(EMPTY_SELECTION, 2)).toEqual([2, 2]);
  });

  it('Ctrl+A selects every row within the most rasters, counting the rows left out', () => {
    expect(selectedIds(selectAll(rows, MAX))).toEqual(['a', 's1', 's2', 's3', 'b', 'c', 'd']);
    const capped = selectAll(rows, 3);
    expect([...capped.rows.keys()]).toEqual(['a', 'b', 'c']);
    expect(capped.capped).toBe(2);
    expect(toggle(capped, rows[4]!, 4, 3).capped).toBe(1);
  });

  it('filtering keeps the selected rows (hidden ones too) and drops the anchor; removed rasters leave it', () => {
    const s = extendTo(selectOnly(rows[0]!, 0, MAX), rows.slice(0, 3), false, MAX);
    const filtered = reordered(s);
    expect(filtered.rows).toBe(s.rows);
    expect(filtered.anchor).toBeNull();
    // With no anchor, the next Shift+click selects from the row clicked.
    expect(rangeOf(filtered, 4)).toEqual([4, 4]);
    const pruned = withoutIds(s, new Set(['s2', 'a']));
    expect([...pruned.rows]).toEqual([['series-1', ['s1', 's3']], ['b', ['b']]]);
    expect(pruned.anchor).toBeNull();
    expect(withoutIds(s, new Set(['zz']))).toBe(s);
  });
});
