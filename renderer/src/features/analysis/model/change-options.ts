import type { LibraryItem } from '../../../platform/lib/library-item';
import type { SeriesResult } from './series-csv';

/** One entry of the change pickers. */
export interface ChangeOption {
  id: string;
  /** "2026-06-10 · file.tif", or "file.tif — cannot be used: <reason>". */
  label: string;
  disabled: boolean;
  /** Why it cannot be used (main's reason from the series), or null. */
  reason: string | null;
}

const fileName = (p: string) => p.split(/[\\/]/).pop() ?? p;

/**
 * What the change pickers offer: the series' dates (rasters main could read the expression from
 * over the target), then the rasters the series set aside, disabled with main's reason (no such
 * band, outside the area, no date…). Before a series there is nothing to offer: which rasters
 * have the bands is known only once main has looked at them.
 */
export function changeOptions(series: SeriesResult | null, entries: readonly LibraryItem[]): ChangeOption[] {
  if (!series) return [];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const usable = series.points.map((p) => ({ id: p.id, label: `${p.date} · ${p.name}`, disabled: false, reason: null }));
  const unusable = series.skipped.map((s) => {
    const date = byId.get(s.id)?.date;
    const name = s.name || fileName(byId.get(s.id)?.path ?? s.id);
    return { id: s.id, label: `${date ? `${date} · ` : ''}${name} — cannot be used: ${s.reason}`, disabled: true, reason: s.reason };
  });
  return [...usable, ...unusable];
}
