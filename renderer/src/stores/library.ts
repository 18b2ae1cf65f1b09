import { defineStore } from 'pinia';
import { computed, reactive, ref } from 'vue';
import type { IpcError } from '../../../preload/contract';
import { getBridge } from '../bridge';
import {
  NO_FILTER, filterEntries, sortEntries, timeSeriesGroups,
  type LibraryFilter, type LibraryItem, type LibrarySort, type SeriesGroup,
} from '../lib/library-model';
import { loadPreviewEngine } from '../preview/load-engine';

export type { LibraryItem } from '../lib/library-model';

/** Thumbnails are cached by content (or by id until main has hashed the file). */
function thumbKey(e: LibraryItem): string {
  return e.sha256 ?? e.id;
}

/**
 * The library of local rasters: the catalog main keeps (list, import, remove, reveal), its filter,
 * sort and time-series groups, and thumbnails. What is open on the map is the preview store's.
 */
export const useLibraryStore = defineStore('library', () => {
  const entries = ref<LibraryItem[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  const error = ref<IpcError | null>(null);
  const importing = ref(false);
  const importError = ref<string | null>(null);
  const notice = ref<string | null>(null);
  const filter = reactive<LibraryFilter>({ ...NO_FILTER });
  const sort = ref<LibrarySort>('date-desc');
  const thumbnails = reactive<Record<string, string>>({});
  /** Lon/lat footprints computed here for rasters whose CRS main cannot reproject (it records bounds4326 null). */
  const footprints = reactive<Record<string, [number, number, number, number]>>({});
  let unsubscribers: (() => void)[] = [];
  const thumbQueue: LibraryItem[] = [];
  let thumbRunning = false;

  /** Entries with a footprint wherever one is known (main's, else the renderer's). */
  const placedEntries = computed(() => entries.value.map((e) => (e.bounds4326 || !footprints[e.id] ? e : { ...e, bounds4326: footprints[e.id]! })));
  const visibleEntries = computed(() => sortEntries(filterEntries(placedEntries.value, filter), sort.value));
  const groups = computed<SeriesGroup[]>(() => timeSeriesGroups(placedEntries.value));
  const groupOf = computed(() => {
    const m = new Map<string, SeriesGroup>();
    for (const g of groups.value) for (const e of g.entries) m.set(e.id, g);
    return m;
  });

  function entry(id: string): LibraryItem | undefined {
    return entries.value.find((e) => e.id === id);
  }

  async function refresh(): Promise<void> {
    loading.value = true;
    try {
      const r = await getBridge().libraryList();
      if (r.ok) {
        entries.value = r.data.entries;
        error.value = null;
        loaded.value = true;
        for (const e of r.data.entries) queueThumbnail(e);
      } else {
        error.value = r.error;
      }
    } finally {
      loading.value = false;
    }
  }

  /** Subscribes to library events and loads the list; safe to call more than once. */
  async function start(): Promise<void> {
    if (unsubscribers.length === 0) unsubscribers = [getBridge().on('library:changed', () => void refresh())];
    await refresh();
  }

  function stop(): void {
    for (const off of unsubscribers) off();
    unsubscribers = [];
  }

  /** Imports GeoTIFFs chosen in the system file dialog (Electron); false when cancelled or unavailable. */
  async function importDialog(): Promise<boolean> {
    importing.value = true;
    importError.value = null;
    try {
      const r = await getBridge().libraryImportDialog();
      if (!r.ok) {
        importError.value = r.error.message;
        return false;
      }
      if (r.data.cancelled) return false;
      await refresh();
      return true;
    } finally {
      importing.value = false;
    }
  }

  async function importPaths(paths: string[]): Promise<boolean> {
    const clean = paths.map((p) => p.trim()).filter(Boolean);
    if (clean.length === 0) return false;
    const bad = clean.filter((p) => !/\.tiff?$/i.test(p));
    if (bad.length) {
      importError.value = `Only GeoTIFF files (.tif, .tiff) can be imported: ${bad.join(', ')}`;
      return false;
    }
    importing.value = true;
    importError.value = null;
    try {
      const r = await getBridge().libraryImport({ paths: clean });
      if (!r.ok) {
        importError.value = r.error.message;
        return false;
      }
      notice.value = `Imported ${r.data.entries.length} raster${r.data.entries.length === 1 ? '' : 's'}.`;
      await refresh();
      return true;
    } finally {
      importing.value = false;
    }
  }

  /** Removes an entry (and its file when asked); the preview store closes its layers first. */
  async function remove(id: string, deleteFile: boolean): Promise<boolean> {
    const r = await getBridge().libraryRemove({ id, deleteFile });
    if (!r.ok) {
      importError.value = r.error.message;
      return false;
    }
    entries.value = entries.value.filter((e) => e.id !== id);
    return true;
  }

  async function reveal(id: string): Promise<boolean> {
    const r = await getBridge().libraryReveal({ id });
    if (r.ok && !r.data.revealed) notice.value = 'Reveal in folder is available in the desktop app.';
    return r.ok && r.data.revealed;
  }

  // ---- thumbnails ----

  function queueThumbnail(e: LibraryItem): void {
    if (thumbnails[thumbKey(e)] !== undefined || thumbQueue.some((q) => thumbKey(q) === thumbKey(e))) return;
    thumbQueue.push(e);
    void runThumbnails();
  }

  async function runThumbnails(): Promise<void> {
    if (thumbRunning) return;
    thumbRunning = true;
    try {
      while (thumbQueue.length) {
        const e = thumbQueue.shift()!;
        if (thumbnails[thumbKey(e)] !== undefined) continue;
        thumbnails[thumbKey(e)] = await makeThumbnail(e).catch(() => '');
      }
    } finally {
      thumbRunning = false;
    }
  }

  /** Writes a STAC catalog of the given entries (all when no ids) through main. */
  const exportStac = (ids?: string[]) => getBridge().exportStac(ids ? { ids } : {});

  /** Whether this window can turn dropped files into paths (Electron's preload can; the browser host cannot). */
  function canResolvePaths(): boolean {
    try {
      return typeof getBridge().pathForFile === 'function';
    } catch {
      return false;
    }
  }

  /** The paths of dropped files, as far as the preload can resolve them. */
  function pathsOf(files: File[]): string[] {
    const pathFor = getBridge().pathForFile;
    return pathFor ? files.map((f) => pathFor(f)).filter(Boolean) : [];
  }

  async function makeThumbnail(e: LibraryItem): Promise<string> {
    const engine = await loadPreviewEngine();
    return engine.makeThumbnail(e, (bbox) => (footprints[e.id] = bbox));
  }

  return {
    entries, placedEntries, loaded, loading, error, importing, importError, notice, filter, sort, thumbnails, footprints,
    groups, groupOf, visibleEntries, entry, start, stop, refresh, importPaths, importDialog, remove, reveal, exportStac, canResolvePaths, pathsOf,
  };
});
