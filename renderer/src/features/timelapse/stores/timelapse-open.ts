import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
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
  function close(): void {
    open.value = false;
  }
  return { open, request, openFilm, close };
});
