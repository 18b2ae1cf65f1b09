import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import { ask } from '../../../platform/request';
import { BRIEF_SERIES_MAX } from '../model/limits';
import type { BriefSeries } from '../model/print-page';

/** A raster of the Library's selection, as main answered it. */
export interface BriefSelected {
  id: string;
  date: string | null;
  name: string;
  bounds4326: [number, number, number, number] | null;
}

/**
 * Whether the brief dialog is open, from where, and the series chart it was handed (the analysis
 * panel's). Small on purpose: the Library, the layer card and the analysis panel import it; the
 * dialog and the print page load only once it opens.
 */
export const useBriefOpenStore = defineStore('brief-open', () => {
  const open = ref(false);
  const from = ref<'library' | 'layer' | 'analysis' | 'fields' | 'keyboard' | 'selection'>('keyboard');
  /** The chart's series the dialog was handed (the analysis panel's one, or the Fields panel's chosen fields). */
  const series = shallowRef<BriefSeries[]>([]);
  /** Fields chosen in the Fields panel for the brief's chart, each its parcel's series, at most {@link BRIEF_SERIES_MAX}. */
  const fields = shallowRef<BriefSeries[]>([]);
  /** The Library's selection the brief shows (oldest first), or null: the map as it is. */
  const selection = shallowRef<BriefSelected[] | null>(null);
  /** Why main refused the last selection (too many, removed meanwhile), or null. */
  const refusal = ref<string | null>(null);
  const checking = ref(false);
  const copy = (s: BriefSeries): BriefSeries => ({ label: s.label, unit: s.unit, points: s.points.map((p) => ({ date: p.date, value: p.value })) });
  /** Opens the dialog; `chart` puts its series on the page's chart (the chart is on by default then), the first {@link BRIEF_SERIES_MAX}. */
  function openBrief(where: typeof from.value, chart?: BriefSeries | readonly BriefSeries[]): void {
    if (where !== 'selection') selection.value = null;
    from.value = where;
    if (chart) series.value = (Array.isArray(chart) ? chart : [chart as BriefSeries]).slice(0, BRIEF_SERIES_MAX).map(copy);
    open.value = true;
  }
  /** Puts a field on the brief's chart (its series again if it is there), unless the chart has its {@link BRIEF_SERIES_MAX} already. */
  function chooseField(field: BriefSeries): boolean {
    const at = fields.value.findIndex((f) => f.label === field.label);
    if (at < 0 && fields.value.length >= BRIEF_SERIES_MAX) return false;
    fields.value = at < 0 ? [...fields.value, copy(field)] : fields.value.map((f, i) => (i === at ? copy(field) : f));
    return true;
  }
  /** Takes a field off the Fields panel's choice and off the open dialog's chart. */
  function dropField(label: string): void {
    fields.value = fields.value.filter((f) => f.label !== label);
    series.value = series.value.filter((f) => f.label !== label);
  }
  /** Opens the dialog for the Library's selection once main has checked it (every raster in the library, at most a page's worth). */
  async function openSelection(ids: readonly string[]): Promise<void> {
    refusal.value = null;
    checking.value = true;
    try {
      const r = await ask((bridge) => bridge.librarySelection({ ids: [...ids], use: 'brief' }));
      if (!r.ok) {
        refusal.value = r.error.message;
        return;
      }
      selection.value = r.data.entries.map((e) => ({ id: e.id, date: e.date, name: e.path.split(/[\\/]/).pop() ?? e.id, bounds4326: e.bounds4326 }));
      openBrief('selection');
    } finally {
      checking.value = false;
    }
  }
  function close(): void {
    open.value = false;
  }
  return { open, from, series, fields, selection, refusal, checking, openBrief, chooseField, dropField, openSelection, close };
});
