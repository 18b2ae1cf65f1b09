import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import { ask } from '../../../platform/request';
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
  const series = shallowRef<BriefSeries | null>(null);
  /** The Library's selection the brief shows (oldest first), or null: the map as it is. */
  const selection = shallowRef<BriefSelected[] | null>(null);
  /** Why main refused the last selection (too many, removed meanwhile), or null. */
  const refusal = ref<string | null>(null);
  const checking = ref(false);
  /** Opens the dialog; `series` puts the analysis panel's chart on the page (the chart is on by default then). */
  function openBrief(where: typeof from.value, chart?: BriefSeries): void {
    if (where !== 'selection') selection.value = null;
    from.value = where;
    if (chart) series.value = { label: chart.label, unit: chart.unit, points: chart.points.map((p) => ({ date: p.date, value: p.value })) };
    open.value = true;
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
  return { open, from, series, selection, refusal, checking, openBrief, openSelection, close };
});
