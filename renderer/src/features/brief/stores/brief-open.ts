import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { BriefSeries } from '../model/print-page';

/**
 * Whether the brief dialog is open, from where, and the series chart it was handed (the analysis
 * panel's). Small on purpose: the Library, the layer card and the analysis panel import it; the
 * dialog and the print page load only once it opens.
 */
export const useBriefOpenStore = defineStore('brief-open', () => {
  const open = ref(false);
  const from = ref<'library' | 'layer' | 'analysis' | 'keyboard'>('keyboard');
  const series = shallowRef<BriefSeries | null>(null);
  /** Opens the dialog; `series` puts the analysis panel's chart on the page (the chart is on by default then). */
  function openBrief(where: typeof from.value, chart?: BriefSeries): void {
    from.value = where;
    if (chart) series.value = { label: chart.label, unit: chart.unit, points: chart.points.map((p) => ({ date: p.date, value: p.value })) };
    open.value = true;
  }
  function close(): void {
    open.value = false;
  }
  return { open, from, series, openBrief, close };
});
