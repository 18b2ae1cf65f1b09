import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import { ask } from '../../../platform/request';
import type { DisplaySettings } from '../../../platform/raster/display';

/**
 * Which rasters the film dialog was opened for (a series' dates, a selection, the map's layer with
 * its display). Small on purpose: the Library, the layer card and the analysis panel import it,
 * while the dialog and its encoder load only once it opens.
 */
export const useTimelapseOpenStore = defineStore('timelapse-open', () => {
  const open = ref(false);
  const request = shallowRef<{ ids: string[]; display?: DisplaySettings; at: number } | null>(null);
  /** Opens the film dialog for these library rasters. */
  function openFilm(ids: readonly string[], display?: DisplaySettings): void {
    request.value = { ids: [...ids], display: display ? JSON.parse(JSON.stringify(display)) as DisplaySettings : undefined, at: Date.now() };
    open.value = true;
  }
  /** Why main refused the last selection for a film (mixed grids or areas, undated, removed), or null. */
  const refusal = ref<string | null>(null);
  const checking = ref(false);
  /**
   * Opens the film dialog for the Library's selection once main has checked it: every raster in the
   * library, one CRS and band list, dated, footprints over one area (main/library/selection.ts).
   */
  async function openSelection(ids: readonly string[]): Promise<void> {
    refusal.value = null;
    checking.value = true;
    try {
      const r = await ask((bridge) => bridge.librarySelection({ ids: [...ids], use: 'film' }));
      if (r.ok) openFilm(r.data.entries.map((e) => e.id));
      else refusal.value = r.error.message;
    } finally {
      checking.value = false;
    }
  }
  function close(): void {
    open.value = false;
  }
  return { open, request, refusal, checking, openFilm, openSelection, close };
});
