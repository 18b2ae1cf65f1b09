import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef, watch } from 'vue';
import type { IpcError, RequestOf, ResponseOf } from '../../../../../preload/contract';
import { LIBRARY_FIRST_PAGE } from '../../../../../common/library-first-page';
import { ask, createRequest, filePaths, listen } from '../../../platform/request';
import { takeFirstPageAhead } from './first-page-ahead';
import type { LibraryItem } from '../../../platform/lib/library-item';
import { NO_FILTER, type LibraryFilter, type LibrarySort, type SeriesGroup } from '../model/library-model';
import { loadPreviewEngine } from '../../../platform/preview/load-engine';

/** Ids per `library:query` (the contract's LIBRARY_PAGE_MAX; its module carries the schemas, which the window's bundle does not). */
const IDS_PER_QUERY = 500;

export type { LibraryItem } from '../../../platform/lib/library-item';

/** Thumbnails are cached by content (or by id until main has hashed the file). */
function thumbKey(e: LibraryItem): string {
  return e.sha256 ?? e.id;
}

/** Rows asked of main around what is seen (main answers at most 500): the first page's, which main has ready. */
const WINDOW = LIBRARY_FIRST_PAGE.limit;
/** A window is fetched again when what is seen comes this close to its edge. */
const MARGIN = 30;

type Page = ResponseOf<'library:query'>;

/**
 * The library of local rasters as the list shows it: a window of rows of main's paged, filtered and
 * sorted query (`library:query`; a time series is one row), the series on those rows, the counts,
 * thumbnails of the rows in view, and import, remove, reveal. `library:changed` carries the changed
 * entries: a known one is replaced in place by id; an add or a removal asks main for the window again
 * (one page, never the whole library). What is open on the map is the preview store's.
 */
export const useLibraryStore = defineStore('library', () => {
  /** The window: rows `offset`… of the current query. */
  const win = shallowRef<{ offset: number; entries: LibraryItem[] }>({ offset: 0, entries: [] });
  /** The time series of the window's rows, by key. */
  const series = shallowRef(new Map<string, SeriesGroup>());
  /** Entries fetched by id for the map (outside the window). */
  const extra = shallowRef(new Map<string, LibraryItem>());
  /** Rows of the list, rasters matching the filters, rasters in the library. */
  const rows = ref(0);
  const matched = ref(0);
  const all = ref(0);
  /** The window of rows around what is seen (the latest answer wins). */
  const windowReq = createRequest<Page>();
  const loaded = computed(() => windowReq.at !== null);
  const loading = computed(() => windowReq.loading);
  const error = computed<IpcError | null>(() => windowReq.error);
  const importReq = createRequest<ResponseOf<'library:import'> & { cancelled?: boolean }>();
  const removeReq = createRequest<unknown>();
  const importing = computed(() => importReq.loading);
  /** What is wrong with what was to be imported, seen before asking main (not a GeoTIFF, a drop without paths). */
  const importProblem = ref<string | null>(null);
  /** The import line's message: that problem, else why main refused the import or the last removal. */
  const importError = computed<string | null>({
    get: () => importProblem.value ?? importReq.error?.message ?? removeReq.error?.message ?? null,
    set: (message) => (importProblem.value = message),
  });
  const notice = ref<string | null>(null);
  const filter = reactive<LibraryFilter>({ ...NO_FILTER });
  const sort = ref<LibrarySort>(LIBRARY_FIRST_PAGE.sort);
  const thumbnails = reactive<Record<string, string>>({});
  /** Lon/lat footprints computed here for rasters whose CRS main cannot reproject (it records bounds4326 null). */
  const footprints = reactive<Record<string, [number, number, number, number]>>({});
  let unsubscribers: (() => void)[] = [];
  /** Rows in view: [first, last). */
  let seen: [number, number] = [0, 0];
  /** The window request after changes: none, about to be asked (this tick's changes join it), asked; changes came since it was asked. */
  let reload: 'idle' | 'queued' | 'asked' = 'idle';
  let changedSince = false;

  const placed = (e: LibraryItem): LibraryItem => (e.bounds4326 || !footprints[e.id] ? e : { ...e, bounds4326: footprints[e.id]! });
  /** Every entry the window knows (its rows, entries fetched by id: a series' other dates), with footprints wherever known. */
  const entries = computed<LibraryItem[]>(() => {
    const byId = new Map<string, LibraryItem>();
    for (const e of extra.value.values()) byId.set(e.id, e);
    for (const e of win.value.entries) byId.set(e.id, e);
    return [...byId.values()].map(placed);
  });
  const byId = computed(() => new Map(entries.value.map((e) => [e.id, e])));
  const groups = computed<SeriesGroup[]>(() => [...series.value.values()]);
  const groupOf = computed(() => {
    const m = new Map<string, SeriesGroup>();
    for (const g of groups.value) for (const e of g.entries) m.set(e.id, g);
    return m;
  });

  function entry(id: string): LibraryItem | undefined {
    return byId.value.get(id);
  }

  /** Row `i` of the list when the window holds it. */
  function rowAt(i: number): LibraryItem | undefined {
    const w = win.value;
    const e = w.entries[i - w.offset];
    return e ? byId.value.get(e.id) : undefined;
  }

  /** The query of the list as shown (its filters and order), from row `offset`. */
  function request(offset: number): RequestOf<'library:query'> {
    return {
      text: filter.query.trim().slice(0, 500) || undefined,
      source: filter.source,
      dateFrom: filter.dateFrom || undefined,
      dateTo: filter.dateTo || undefined,
      bbox: filter.area ? clampBox(filter.area) : undefined,
      sort: sort.value,
      offset,
      limit: WINDOW,
      series: true,
    };
  }

  function apply(offset: number, page: Page): void {
    win.value = { offset, entries: page.entries };
    series.value = new Map(page.series.map((g) => [g.key, { key: g.key, entries: g.entries }]));
    rows.value = page.rows;
    matched.value = page.total;
    all.value = page.all;
  }

  /** Asks main for the window around what is seen (the latest answer wins). */
  async function load(offset = Math.max(0, seen[0] - MARGIN)): Promise<void> {
    const asked = request(offset);
    const r = await windowReq.run((bridge) => takeFirstPageAhead(asked) ?? bridge.libraryQuery(asked));
    if (r.ok) apply(offset, r.data);
  }

  /** The list says which rows are in view; the window follows and their thumbnails are made. */
  function view(first: number, last: number): void {
    seen = [first, last];
    const w = win.value;
    const needFrom = Math.max(0, first - 1);
    const needTo = Math.min(rows.value, last + 1);
    const holds = needFrom >= w.offset && needTo <= w.offset + w.entries.length;
    const nearEdge = (first - w.offset < MARGIN / 2 && w.offset > 0) || (w.offset + w.entries.length - last < MARGIN / 2 && w.offset + w.entries.length < rows.value);
    if (!holds || nearEdge) void load(Math.max(0, first - Math.floor((WINDOW - (last - first)) / 2)));
  }

  /** Reloads the window from the first row (a new filter or order). */
  async function refresh(): Promise<void> {
    seen = [0, seen[1] - seen[0]];
    await load(0);
  }

  /** Applies `library:changed`: entries known here are replaced by id; adds and removals reload the window once. */
  function onChanged(change: { upserted: LibraryItem[]; removed: string[] }): void {
    let structural = change.removed.length > 0;
    const fresh = new Map(change.upserted.map((e) => [e.id, e]));
    for (const e of change.upserted) if (!byId.value.has(e.id) || byId.value.get(e.id)!.series !== e.series) structural = true;
    const swap = (e: LibraryItem) => fresh.get(e.id) ?? e;
    const gone = new Set(change.removed);
    win.value = { offset: win.value.offset, entries: win.value.entries.filter((e) => !gone.has(e.id)).map(swap) };
    series.value = new Map([...series.value].map(([k, g]) => [k, { key: k, entries: g.entries.filter((e) => !gone.has(e.id)) }]));
    if ([...fresh.keys()].some((id) => extra.value.has(id)) || change.removed.some((id) => extra.value.has(id))) {
      extra.value = new Map([...extra.value].filter(([id]) => !gone.has(id)).map(([id, e]) => [id, swap(e)]));
    }
    if (structural) reloadForChanges();
  }

  /**
   * Asks for the window again after changes: at most one such request at a time, and one more once it
   * is answered if changes came meanwhile (a watch run adds many in a row; each query of a large
   * library takes main's query thread tens of milliseconds, so they must not queue up).
   */
  function reloadForChanges(): void {
    if (reload === 'asked') changedSince = true;
    if (reload !== 'idle') return;
    reload = 'queued';
    // The changes of this tick (one event or several) in one request.
    queueMicrotask(() => {
      reload = 'asked';
      changedSince = false;
      void load().finally(() => {
        reload = 'idle';
        if (changedSince) reloadForChanges();
      });
    });
  }

  /** Makes sure an entry is known (the map opens rasters the window may not hold, e.g. from a notification). */
  async function ensure(id: string): Promise<LibraryItem | undefined> {
    if (entry(id)) return entry(id);
    const r = await ask((bridge) => bridge.libraryQuery({ ids: [id], limit: 1 }));
    if (!r.ok || !r.data.entries[0]) return undefined;
    extra.value = new Map(extra.value).set(id, r.data.entries[0]);
    return entry(id);
  }

  /** Makes a raster main serves but the library does not hold (a teammate's, read over the team's read URL) known to the map. */
  function adopt(item: LibraryItem): void {
    extra.value = new Map(extra.value).set(item.id, item);
  }

  /** Subscribes to library events and loads the window; safe to call more than once. */
  async function start(): Promise<void> {
    if (unsubscribers.length === 0) unsubscribers = [listen('library:changed', onChanged)];
    await load(0);
  }

  function stop(): void {
    for (const off of unsubscribers) off();
    unsubscribers = [];
  }

  // A new filter or order: the list starts over at its first row.
  watch([() => ({ ...filter }), sort], () => {
    if (loaded.value) void refresh();
  }, { deep: true });

  /** Imports GeoTIFFs chosen in the system file dialog (Electron); false when cancelled or unavailable. */
  async function importDialog(): Promise<boolean> {
    startImport();
    const r = await importReq.run((bridge) => bridge.libraryImportDialog());
    if (!r.ok || r.data.cancelled) return false;
    await load();
    return true;
  }

  async function importPaths(paths: string[]): Promise<boolean> {
    const clean = paths.map((p) => p.trim()).filter(Boolean);
    if (clean.length === 0) return false;
    const bad = clean.filter((p) => !/\.tiff?$/i.test(p));
    if (bad.length) {
      importProblem.value = `Only GeoTIFF files (.tif, .tiff) can be imported: ${bad.join(', ')}`;
      return false;
    }
    startImport();
    const r = await importReq.run((bridge) => bridge.libraryImport({ paths: clean }));
    if (!r.ok) return false;
    notice.value = `Imported ${r.data.entries.length} raster${r.data.entries.length === 1 ? '' : 's'}.`;
    await load();
    return true;
  }

  /** An import starts with a clear import line. */
  function startImport(): void {
    importProblem.value = null;
    removeReq.reset();
  }

  /** Removes an entry (and its file when asked); the preview store closes its layers first. */
  async function remove(id: string, deleteFile: boolean): Promise<boolean> {
    const r = await removeReq.run((bridge) => bridge.libraryRemove({ id, deleteFile }));
    if (!r.ok) return false;
    onChanged({ upserted: [], removed: [id] });
    return true;
  }

  async function reveal(id: string): Promise<boolean> {
    const r = await ask((bridge) => bridge.libraryReveal({ id }));
    if (r.ok && !r.data.revealed) notice.value = 'Reveal in folder is available in the desktop app.';
    return r.ok && r.data.revealed;
  }

  /** True while a search or filter narrows the list (a time series' row then shows all its dates, not only the matching ones). */
  const filtering = computed(() => !!filter.query.trim() || !!filter.dateFrom || !!filter.dateTo || !!filter.area || filter.source !== 'all');

  /**
   * How many of a time series' dates the filters match (main's count, as the list's "N of M
   * rasters" counts them), its dates asked IDS_PER_QUERY at a time; null when it cannot be told.
   */
  async function seriesMatched(group: SeriesGroup): Promise<number | null> {
    let n = 0;
    for (let i = 0; i < group.entries.length; i += IDS_PER_QUERY) {
      const ids = group.entries.slice(i, i + IDS_PER_QUERY).map((e) => e.id);
      const r = await ask((bridge) => bridge.libraryQuery({ ...request(0), ids, limit: 1, series: false }));
      if (!r.ok) return null;
      n += r.data.total;
    }
    return n;
  }

  /** The ids of every raster the filters match, page by page (for exporting what is shown). */
  async function matchedIds(): Promise<string[]> {
    const out: string[] = [];
    for (let offset = 0; ; offset += 500) {
      const r = await ask((bridge) => bridge.libraryQuery({ ...request(offset), limit: 500, series: false }));
      if (!r.ok) throw new Error(r.error.message);
      out.push(...r.data.entries.map((e) => e.id));
      if (r.data.entries.length < 500) return out;
    }
  }

  // ---- thumbnails: only of the rows on screen (the list mounts no others) ----

  const thumbQueue = new Map<string, LibraryItem>();
  let thumbRunning = false;

  /** A row came into view: its thumbnail is made unless known. */
  function wantThumbnail(e: LibraryItem): void {
    if (thumbnails[thumbKey(e)] !== undefined || thumbQueue.has(thumbKey(e))) return;
    thumbQueue.set(thumbKey(e), e);
    void runThumbnails();
  }

  /** A row left the view: its thumbnail is no longer wanted (unless it is being made). */
  function dropThumbnail(e: LibraryItem): void {
    thumbQueue.delete(thumbKey(e));
  }

  async function runThumbnails(): Promise<void> {
    if (thumbRunning) return;
    thumbRunning = true;
    try {
      for (let next = thumbQueue.values().next(); !next.done; next = thumbQueue.values().next()) {
        const e = next.value;
        thumbQueue.delete(thumbKey(e));
        if (thumbnails[thumbKey(e)] !== undefined) continue;
        thumbnails[thumbKey(e)] = await makeThumbnail(e).catch(() => '');
      }
    } finally {
      thumbRunning = false;
    }
  }

  /** Writes a STAC catalog of the given entries (all when no ids) through main. */
  /** `source` 'team': the team catalog's rasters (on the share) instead of this library's. */
  const exportStac = (ids?: string[], source?: 'team') => ask((bridge) => bridge.exportStac(source ? { source } : ids ? { ids } : {}));

  /** Whether this window can turn dropped files into paths (Electron's preload can; the browser host cannot). */
  function canResolvePaths(): boolean {
    return filePaths() !== null;
  }

  /** The paths of dropped files, as far as the preload can resolve them. */
  function pathsOf(files: File[]): string[] {
    const pathFor = filePaths();
    return pathFor ? files.map((f) => pathFor(f)).filter(Boolean) : [];
  }

  async function makeThumbnail(e: LibraryItem): Promise<string> {
    const engine = await loadPreviewEngine();
    return engine.makeThumbnail(e, (bbox) => (footprints[e.id] = bbox), (request) => ask((bridge) => bridge.libraryPreview(request)));
  }

  return {
    entries, rows, matched, all, loaded, loading, error, importing, importError, notice, filter, sort, thumbnails, footprints,
    groups, groupOf, entry, filtering, seriesMatched, rowAt, view, shownQuery: request, ensure, adopt, wantThumbnail, dropThumbnail, start, stop, refresh, importPaths, importDialog, remove, reveal, exportStac, matchedIds,
    canResolvePaths, pathsOf,
  };
});

/** A map view's box within lon/lat limits (main refuses anything else). */
function clampBox(b: readonly number[]): [number, number, number, number] | undefined {
  const lon = (v: number) => Math.max(-180, Math.min(180, v));
  const lat = (v: number) => Math.max(-90, Math.min(90, v));
  const box: [number, number, number, number] = [lon(b[0]!), lat(b[1]!), lon(b[2]!), lat(b[3]!)];
  // A view across the antimeridian: no area filter rather than a wrong one.
  return box[0] <= box[2] && box[1] <= box[3] ? box : undefined;
}
