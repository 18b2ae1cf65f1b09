import { transformExtent } from 'ol/proj';
import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef, toRaw } from 'vue';
import type { IpcError, ResponseOf } from '../../../preload/contract';
import { getBridge } from '../bridge';
import { whenMap } from '../map/map-context';
import { RasterLayers, type PointerAt } from '../map/raster-layers';
import { createSwipeControl, type SwipeControl } from '../map/raster-swipe';
import {
  NO_FILTER, filterEntries, sortEntries, timeSeriesGroups,
  type LibraryFilter, type LibraryItem, type LibrarySort, type SeriesGroup,
} from '../panels/library/library-model';
import { evaluate, formatExpression, parseBandExpression } from '../raster/band-expression';
import { defaultDisplay, displayChannels, isIndexDisplay, suggestedExpressions, type BandMeta, type Channel, type DisplaySettings } from '../raster/display';
import { buildHistogram, type Histogram } from '../raster/histogram';
import { buildRasterStyle, styleVariables, usedBands, type RasterStyle } from '../raster/layer-style';
import { ensureProjection, UnknownProjectionError, type ProjectionInfo } from '../raster/projection';
import { warpQuickLook, type QuickLook } from '../raster/quicklook';
import { channelValues, physicalValues, RasterFile, rasterUrl, type RasterHeader, type RasterSample } from '../raster/raster-data';
import { renderSample, rgbaToDataUrl } from '../raster/render-sample';
import { stretchRange, type StretchSettings } from '../raster/stretch';

export type { LibraryItem } from '../panels/library/library-model';

/** Preview status of a layer. */
export type PreviewStatus = 'preparing' | 'building' | 'loading' | 'ready' | 'error';

/** One raster open on the map, as the panels see it. */
export interface PreviewLayer {
  /** Layer key: the library id of the raster shown. */
  key: string;
  entryId: string;
  title: string;
  date: string | null;
  status: PreviewStatus;
  /** Overview build progress 0..1 while status is 'building'. */
  progress: number | null;
  /** Why the layer failed, when status is 'error'. */
  message: string | null;
  /** How the raster is read (directly, or through a cached overview copy), and projection caveats. */
  note: string | null;
  rasterId: string | null;
  epsg: number | null;
  projectionName: string | null;
  bands: BandMeta[];
  display: DisplaySettings;
  channels: Channel[];
  /** Why the display cannot be drawn (a bad expression), or null. */
  displayError: string | null;
  histograms: Histogram[];
  /** Display range [lo, hi] per channel, in physical units. */
  ranges: [number, number][];
  opacity: number;
  visible: boolean;
  /**
   * ms from "open" to: the first full frame of the view (the quick look, or the layer itself),
   * the WebGL layer in place (status 'ready'), and its first complete frame.
   */
  timing: { firstFrameMs: number | null; readyMs: number | null; renderedMs: number | null };
}

/** What the pixel inspector shows for the point under the pointer. */
export interface InspectorReading {
  layerKey: string;
  title: string;
  lonLat: [number, number];
  crs: string;
  crsCoordinate: [number, number];
  /** Column and row (0-based) of the full-resolution pixel. */
  pixel: [number, number] | null;
  values: { band: string; dn: number; value: number | null }[];
  indices: { name: string; value: number | null }[];
  pinned: boolean;
  outside: boolean;
}

/** Build state of an overview copy reported by main. */
type Preview = ResponseOf<'library:preview'>;

interface LayerRuntime {
  /** File bands a warped layer's tiles carry (see raster-warp-source.ts), or null when the source has every band. */
  slots: number[] | null;
  file: RasterFile;
  header: RasterHeader;
  sample: RasterSample | null;
  histograms: Map<string, Histogram>;
  projection: ProjectionInfo;
  /** The quick look shown until the WebGL layer has its tiles (see raster/quicklook.ts). */
  quick: QuickLook | null;
}

function errorMessage(e: unknown): string {
  if (e instanceof UnknownProjectionError) return e.message;
  const m = e instanceof Error ? e.message : String(e);
  return m || 'The raster could not be read.';
}

/** Thumbnails are cached by content (or by id until main has hashed the file). */
function thumbKey(e: LibraryItem): string {
  return e.sha256 ?? e.id;
}

/** What the layer list says about how a raster is read. */
function previewNote(p: Preview): string | null {
  if (p.state === 'ready') return `Previewed from an overview copy (${p.reused ? 'cached' : `built in ${(p.buildMs / 1000).toFixed(1)} s`}): ${p.reason}`;
  if (p.state === 'quick-look') return `A quick look is shown while the overview copy is built: ${p.reason}`;
  return p.state === 'unsupported' ? p.reason : null;
}

function titleOf(e: LibraryItem): string {
  return e.path.split(/[\\/]/).pop() ?? e.id;
}

/** The library of local rasters, the preview layers open on the map, and their display controls. */
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
  const layers = ref<PreviewLayer[]>([]);
  const activeKey = ref<string | null>(null);
  const inspector = ref<InspectorReading | null>(null);
  const compare = reactive({ enabled: false, position: 0.5 });
  const seriesSelection = reactive<Record<string, string>>({});
  const mapReady = shallowRef(false);

  const runtimes = new Map<string, LayerRuntime>();
  /** The raster id main last named for a library id (the file, or its overview copy), opened early on the next open. */
  const lastRasterId = new Map<string, string>();
  let manager: RasterLayers | null = null;
  let managerPromise: Promise<RasterLayers> | null = null;
  let swipeControl: SwipeControl | null = null;
  let unsubscribers: (() => void)[] = [];
  let inspectToken = 0;
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
  const activeLayer = computed(() => layers.value.find((l) => l.key === activeKey.value) ?? null);

  function entry(id: string): LibraryItem | undefined {
    return entries.value.find((e) => e.id === id);
  }

  function layer(key: string): PreviewLayer | undefined {
    return layers.value.find((l) => l.key === key);
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
    if (unsubscribers.length === 0) {
      const bridge = getBridge();
      unsubscribers = [
        bridge.on('library:changed', () => void refresh()),
        bridge.on('library:overview-progress', ({ id, fraction }) => {
          for (const l of layers.value) {
            if (l.entryId === id && (l.status === 'preparing' || l.status === 'building')) {
              l.status = 'building';
              l.progress = fraction;
            }
          }
        }),
      ];
    }
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

  async function remove(id: string, deleteFile: boolean): Promise<boolean> {
    const open = layers.value.filter((l) => l.entryId === id).map((l) => l.key);
    for (const key of open) close(key);
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

  // ---- map wiring ----

  function getManager(): Promise<RasterLayers> {
    if (manager) return Promise.resolve(manager);
    if (!managerPromise) {
      managerPromise = whenMap().then((map) => {
        manager = new RasterLayers(map, (at) => void inspect(at));
        mapReady.value = true;
        return manager;
      });
    }
    return managerPromise;
  }

  function syncOrder(): void {
    manager?.setOrder(layers.value.map((l) => l.key));
    syncSwipe();
  }

  function syncSwipe(): void {
    const m = manager;
    if (!m) return;
    // Layers drawn now: ready ones, and loading ones showing their quick look.
    const visible = layers.value.filter((l) => l.visible && (l.status === 'ready' || m.hasQuickLook(l.key)));
    const top = visible[0];
    if (compare.enabled && top && visible.length >= 2) {
      m.setSwipe({ key: top.key, position: compare.position });
      if (!swipeControl) swipeControl = createSwipeControl(m.map, compare.position, (p) => setComparePosition(p));
    } else {
      m.setSwipe(null);
      swipeControl?.dispose();
      swipeControl = null;
    }
  }

  // ---- display ----

  function histogramsFor(rt: LayerRuntime, l: PreviewLayer): Histogram[] {
    if (!rt.sample) return l.channels.map(() => buildHistogram([]));
    return l.channels.map((c) => {
      const k = formatExpression(c.ast);
      let h = rt.histograms.get(k);
      if (!h) {
        h = buildHistogram(channelValues(rt.sample!, c, l.bands, rt.header.nodata));
        rt.histograms.set(k, h);
      }
      return h;
    });
  }

  function rangesFor(l: PreviewLayer): [number, number][] {
    const index = isIndexDisplay(l.channels);
    return l.channels.map((c, i) => {
      const h = l.histograms[i]!;
      const manual = l.display.manual[c.key];
      // Index values are only meaningful on their own scale: min/max of an index spans -1..1.
      if (index && l.display.stretch.mode === 'minmax') return [Math.max(-1, h.min), Math.min(1, h.max)] as [number, number];
      return stretchRange(h, l.display.stretch, manual);
    });
  }

  function rasterStyle(l: PreviewLayer, rt: LayerRuntime): RasterStyle {
    const alpha = rt.header.nodata == null ? null : (rt.slots ? rt.slots.length : l.bands.length) + 1;
    return buildRasterStyle(l.channels, l.bands, l.ranges, l.display.stretch.gamma, l.display.ramp, alpha, rt.slots ?? undefined);
  }

  /** Recomputes channels, histograms, ranges and the layer style after a display change. */
  function applyDisplay(l: PreviewLayer, rebuildStyle: boolean): void {
    const rt = runtimes.get(l.key);
    const ch = displayChannels(l.display, l.bands);
    if (!ch.ok) {
      l.displayError = ch.message;
      return;
    }
    l.displayError = null;
    l.channels = ch.channels;
    if (rt) l.histograms = histogramsFor(rt, l);
    l.ranges = rangesFor(l);
    if (!rt || !manager) return;
    if (rt.quick) drawQuickLook(l, rt);
    if (!manager.has(l.key)) return;
    const need = usedBands(l.channels);
    const rewarp = rt.slots !== null && need.join() !== rt.slots.join();
    if (rewarp) rt.slots = need;
    const style = rasterStyle(l, rt);
    if (rebuildStyle || rewarp) manager.setStyle(l.key, style, rewarp ? need : undefined);
    else manager.setVariables(l.key, style.variables);
  }

  /** Draws (or redraws) a layer's quick look with its current display. */
  function drawQuickLook(l: PreviewLayer, rt: LayerRuntime): void {
    const q = rt.quick;
    if (!q || !manager) return;
    // Raw (non-reactive) inputs: the colouring reads them once per pixel.
    const rgba = renderSample(q.sample, toRaw(l.channels), toRaw(l.bands), rt.header.nodata, toRaw(l.ranges), l.display.stretch.gamma, l.display.ramp);
    manager.setQuickLook(l.key, rgba, q.sample.width, q.sample.height, q.extent, { opacity: l.opacity, visible: l.visible });
  }

  /** Changes what a layer shows (mode, bands, expression, ramp). */
  function setDisplay(key: string, patch: Partial<Omit<DisplaySettings, 'stretch'>>): void {
    const l = layer(key);
    if (!l) return;
    const modeChanged = patch.mode && patch.mode !== l.display.mode;
    l.display = { ...l.display, ...patch };
    if (modeChanged && l.display.mode === 'expression') {
      const parsed = parseBandExpression(l.display.expression, l.bands.map((b) => b.name));
      if (parsed.ok && isIndexDisplay([{ key: 'v', label: '', ast: parsed.ast }]) && !patch.ramp) l.display.ramp = 'rdylgn';
    }
    if (patch.rgb || patch.band || patch.expression || patch.mode) l.display.manual = {};
    applyDisplay(l, true);
  }

  /** Changes the stretch (mode, percentiles, gamma): only style variables change. */
  function setStretch(key: string, patch: Partial<StretchSettings>): void {
    const l = layer(key);
    if (!l) return;
    l.display = { ...l.display, stretch: { ...l.display.stretch, ...patch } };
    applyDisplay(l, false);
  }

  /** Sets a channel's range by hand (switches the stretch to manual). */
  function setManualRange(key: string, channel: Channel['key'], range: [number, number]): void {
    const l = layer(key);
    if (!l) return;
    const manual: Record<string, [number, number]> = {};
    l.channels.forEach((c, i) => (manual[c.key] = l.ranges[i] ?? [0, 1]));
    manual[channel] = range;
    l.display = { ...l.display, manual, stretch: { ...l.display.stretch, mode: 'manual' } };
    applyDisplay(l, false);
  }

  // ---- opening ----

  /**
   * Opens a library raster on the map (the downloads tray calls this too): builds an overview copy
   * first when the file is not cloud optimised, registers its projection, computes the stretch from
   * an overview histogram, and zooms to it unless told not to.
   */
  async function openOnMap(libraryId: string, opts: { zoom?: boolean; display?: DisplaySettings; at?: number; opacity?: number; visible?: boolean } = {}): Promise<void> {
    const started = performance.now();
    performance.mark(`swath-preview-open:${libraryId}`);
    if (!entry(libraryId)) await refresh();
    const e = entry(libraryId);
    if (!e) {
      notice.value = 'That raster is no longer in the library.';
      return;
    }
    const existing = layer(libraryId);
    if (existing && existing.status !== 'error') {
      activeKey.value = libraryId;
      if (opts.zoom !== false) await zoomTo(libraryId);
      return;
    }
    if (existing) close(libraryId);
    const l: PreviewLayer = {
      key: e.id, entryId: e.id, title: titleOf(e), date: e.date, status: 'preparing', progress: null, message: null, note: null,
      rasterId: null, epsg: e.epsg, projectionName: null, bands: e.bands.map((name) => ({ name, scaling: { scale: 1, offset: 0 } })),
      display: opts.display ?? defaultDisplay(e.bands.map((name) => ({ name, scaling: { scale: 1, offset: 0 } }))),
      channels: [], displayError: null, histograms: [], ranges: [], opacity: opts.opacity ?? 1, visible: opts.visible ?? true, timing: { firstFrameMs: null, readyMs: null, renderedMs: null },
    };
    const list = [...layers.value];
    list.splice(Math.min(opts.at ?? 0, list.length), 0, l);
    layers.value = list;
    activeKey.value = l.key;
    // This open's own layer (by identity: the same id closed and opened again is another layer).
    const mine = (): PreviewLayer | undefined => layers.value.find((x) => toRaw(x) === l);
    const live = (): PreviewLayer | undefined => {
      const x = mine();
      return x && x.status !== 'error' ? x : undefined;
    };
    const fail = (message: string): void => {
      const x = mine();
      if (!x) return;
      x.status = 'error';
      x.message = message;
      manager?.remove(l.key);
      runtimes.delete(l.key);
    };
    try {
      // What main said last time is opened while it decides again (the file itself for COGs, the
      // cached overview copy for the others).
      const guess = lastRasterId.get(e.id) ?? e.id;
      const early = RasterFile.open(rasterUrl(guess));
      early.catch(() => undefined);
      // A file that needs an overview copy first gets a quick look about the size of the map.
      const edge = manager?.viewState()?.edge ?? Math.ceil(Math.max(globalThis.innerWidth || 0, globalThis.innerHeight || 0) * (globalThis.devicePixelRatio || 1));
      const quickEdge = Math.min(8192, Math.max(256, edge || 1024));
      const prep = await getBridge().libraryPreview({ id: e.id, quickLook: quickEdge });
      if (!prep.ok) return fail(prep.error.message);
      let p: Preview = prep.data;
      let cur = live();
      if (!cur) return;
      cur.status = p.state === 'quick-look' ? 'building' : 'loading';
      cur.progress = null;
      cur.rasterId = p.rasterId;
      cur.note = previewNote(p);
      // A copy built just now is a new file under the same id: the early open may have read the old one.
      const reuse = p.rasterId === guess && (p.state !== 'ready' || p.reused);
      let file = reuse ? await early.catch(() => RasterFile.open(rasterUrl(p.rasterId))) : await RasterFile.open(rasterUrl(p.rasterId));
      if (!reuse) void early.then((f) => f.close(), () => undefined);
      if (p.state !== 'quick-look') lastRasterId.set(e.id, p.rasterId);
      const header = file.header;
      const epsg = header.epsg ?? e.epsg;
      if (epsg == null) return fail('This raster has no EPSG code (user-defined or missing CRS), so it cannot be placed on the map.');
      if (!header.bbox) return fail('This raster has no georeferencing, so it cannot be placed on the map.');
      const projection = await ensureProjection(epsg);
      cur = live();
      if (!cur) return;
      cur.epsg = epsg;
      cur.projectionName = `EPSG:${epsg} · ${projection.name}`;
      if (projection.note) cur.note = [cur.note, projection.note].filter(Boolean).join(' ');
      cur.bands = header.bands;
      if (!opts.display || opts.display.rgb.some((i) => i > header.bands.length)) cur.display = defaultDisplay(header.bands);
      const m = await getManager();
      const rt: LayerRuntime = { slots: null, file, header, sample: null, histograms: new Map(), projection, quick: null };
      runtimes.set(l.key, rt);
      if (!displayChannels(cur.display, cur.bands).ok) cur.display = defaultDisplay(cur.bands);
      if (opts.zoom !== false) m.fit(header.bbox, projection.code);
      // First frame: the quick look of the view, coloured with the stretch of a small overview.
      const view = m.viewState();
      const quickP = view ? warpQuickLook(file, projection.code, view.projection, view.extent, view.resolution).catch(() => null) : Promise.resolve(null);
      // The stretch is worked out while the quick look's blocks are still arriving.
      rt.sample = await file.readSample(file.overviewLevel(256), 512);
      cur = live();
      if (!cur) return;
      applyDisplay(cur, false);
      const quick = await quickP;
      cur = live();
      if (!cur) return;
      syncOrder();
      rt.quick = quick;
      if (quick && !cur.displayError) {
        drawQuickLook(cur, rt);
        syncSwipe();
        await m.nextRenderComplete();
        const shown = mine();
        if (shown && shown.timing.firstFrameMs == null) shown.timing.firstFrameMs = Math.round(performance.now() - started);
      }
      if (p.state === 'quick-look') {
        // The full copy (tiled, with overviews) is built now; its progress shows on the layer.
        const full = await getBridge().libraryPreview({ id: e.id });
        if (!full.ok) return fail(full.error.message);
        p = full.data;
        lastRasterId.set(e.id, p.rasterId);
        const quickFile = file;
        file = await RasterFile.open(rasterUrl(p.rasterId));
        void quickFile.close();
        cur = live();
        if (!cur) return void file.close();
        rt.file = file;
        rt.header = file.header;
        cur.status = 'loading';
        cur.progress = null;
        cur.rasterId = p.rasterId;
        cur.note = [previewNote(p), projection.note].filter(Boolean).join(' ') || null;
      }
      // The WebGL layer loads under the quick look (invisible) and replaces it once its tiles are drawn.
      if (m.warps(projection.code, true)) rt.slots = usedBands(cur.channels);
      await m.add({ key: l.key, url: rasterUrl(p.rasterId), file, bands: rt.slots ?? undefined, nodata: header.nodata, projection: projection.code, style: rasterStyle(cur, rt), opacity: 0, visible: cur.visible });
      syncOrder();
      await m.nextRenderComplete();
      cur = live();
      if (!cur) {
        m.remove(l.key);
        return;
      }
      m.removeQuickLook(l.key);
      rt.quick = null;
      m.setOpacity(l.key, cur.opacity);
      m.setVisible(l.key, cur.visible);
      cur.status = 'ready';
      syncSwipe();
      cur.timing.readyMs = Math.round(performance.now() - started);
      await m.nextRenderComplete();
      const done = mine();
      if (done && done.timing.renderedMs == null) {
        done.timing.renderedMs = Math.round(performance.now() - started);
        done.timing.firstFrameMs ??= done.timing.renderedMs;
        performance.mark(`swath-preview-rendered:${libraryId}`);
      }
    } catch (err) {
      fail(errorMessage(err));
    }
  }

  /** Closes a preview layer. */
  function close(key: string): void {
    manager?.remove(key);
    runtimes.delete(key);
    layers.value = layers.value.filter((l) => l.key !== key);
    if (activeKey.value === key) activeKey.value = layers.value[0]?.key ?? null;
    if (inspector.value?.layerKey === key) inspector.value = null;
    syncOrder();
  }

  /** Zooms the map to a raster (open or not). */
  async function zoomTo(id: string): Promise<void> {
    const m = await getManager();
    const rt = runtimes.get(id);
    if (rt?.header.bbox) return m.fit(rt.header.bbox, rt.projection.code, { duration: 250 });
    const e = entry(id);
    if (e?.bounds4326) return m.fit(e.bounds4326, 'EPSG:4326', { duration: 250 });
    // Footprint unknown to main (a CRS it cannot reproject): read the header here.
    try {
      const file = await RasterFile.open(rasterUrl(id));
      const epsg = file.header.epsg;
      if (epsg == null || !file.header.bbox) throw new Error('This raster has no usable georeferencing.');
      const proj = await ensureProjection(epsg);
      m.fit(file.header.bbox, proj.code, { duration: 250 });
    } catch (err) {
      notice.value = errorMessage(err);
    }
  }

  function setActive(key: string): void {
    if (layer(key)) activeKey.value = key;
  }

  function setOpacity(key: string, opacity: number): void {
    const l = layer(key);
    if (!l) return;
    l.opacity = Math.min(1, Math.max(0, opacity));
    if (l.status === 'ready') manager?.setOpacity(key, l.opacity);
    else quickLookFollows(l);
  }

  function setVisible(key: string, visible: boolean): void {
    const l = layer(key);
    if (!l) return;
    l.visible = visible;
    if (l.status === 'ready') manager?.setVisible(key, visible);
    else quickLookFollows(l);
    syncSwipe();
  }

  /** While a layer is loading, its quick look follows opacity and visibility (the WebGL layer stays hidden until it takes over). */
  function quickLookFollows(l: PreviewLayer): void {
    manager?.setQuickLookState(l.key, { opacity: l.opacity, visible: l.visible });
  }

  /** Moves a layer up (-1, towards the top) or down (+1) in the stack. */
  function moveLayer(key: string, delta: number): void {
    const list = [...layers.value];
    const i = list.findIndex((l) => l.key === key);
    const j = i + delta;
    if (i < 0 || j < 0 || j >= list.length) return;
    [list[i], list[j]] = [list[j]!, list[i]!];
    layers.value = list;
    syncOrder();
  }

  function setCompare(enabled: boolean): void {
    compare.enabled = enabled;
    syncSwipe();
  }

  function setComparePosition(position: number): void {
    compare.position = Math.min(1, Math.max(0, position));
    swipeControl?.setPosition(compare.position);
    syncSwipe();
  }

  // ---- time series ----

  /** The entry a series shows: the one open on the map, else the last one chosen, else the newest. */
  function seriesCurrent(g: SeriesGroup): LibraryItem {
    const open = g.entries.find((e) => layer(e.id));
    if (open) return open;
    const chosen = g.entries.find((e) => e.id === seriesSelection[g.key]);
    return chosen ?? g.entries.at(-1)!;
  }

  /** Shows another date of a series: the open layer of the series is replaced in place, keeping its display, opacity and order. */
  async function showSeriesEntry(groupKey: string, entryId: string): Promise<void> {
    const g = groups.value.find((x) => x.key === groupKey);
    if (!g) return;
    seriesSelection[groupKey] = entryId;
    const open = layers.value.find((l) => g.entries.some((e) => e.id === l.entryId));
    if (!open) return openOnMap(entryId, { zoom: true });
    if (open.entryId === entryId) return;
    const at = layers.value.indexOf(open);
    const replacing = open.key;
    // The same display, opacity and visibility from the quick look on.
    await openOnMap(entryId, { zoom: false, display: open.display, opacity: open.opacity, visible: open.visible, at });
    // The old date goes only once the new one is drawn, so stepping never shows an empty map.
    close(replacing);
  }

  /** Steps a series by `delta` dates (arrow keys, prev/next). */
  async function stepSeries(groupKey: string, delta: number): Promise<void> {
    const g = groups.value.find((x) => x.key === groupKey);
    if (!g) return;
    const i = g.entries.indexOf(seriesCurrent(g));
    const next = g.entries[Math.min(g.entries.length - 1, Math.max(0, i + delta))]!;
    if (next.id !== g.entries[i]?.id) await showSeriesEntry(groupKey, next.id);
  }

  // ---- pixel inspector ----

  /** Reads every band (and the indices) under a map position; a click pins the reading. */
  async function inspect(at: PointerAt): Promise<void> {
    if (!at.click && inspector.value?.pinned) return;
    const candidates = layers.value.filter((l) => l.status === 'ready' && l.visible);
    const target = candidates.find((l) => l.key === activeKey.value) ?? candidates[0];
    if (!target || !manager) return;
    const rt = runtimes.get(target.key);
    if (!rt) return;
    const token = ++inspectToken;
    const crs = rt.projection.code;
    const crsCoordinate = manager.toProjection(at.coordinate, at.viewProjection, crs);
    const lonLat = manager.toProjection(at.coordinate, at.viewProjection, 'EPSG:4326');
    const px = rt.file.pixelOf(crsCoordinate[0], crsCoordinate[1]);
    const inside = !!px && px[0] >= 0 && px[1] >= 0 && px[0] < rt.header.width && px[1] < rt.header.height;
    const base: InspectorReading = {
      layerKey: target.key, title: target.title, lonLat, crs, crsCoordinate,
      pixel: inside && px ? [Math.floor(px[0]), Math.floor(px[1])] : null, values: [], indices: [], pinned: at.click, outside: !inside,
    };
    if (!inside || !px) {
      if (token === inspectToken) inspector.value = base;
      return;
    }
    try {
      // The layer's file: the library file itself, or its overview copy, whose full resolution is
      // the file's pixels exactly (and readable where the original is not, e.g. big-endian strips).
      const dns = await rt.file.readPixel(px[0], px[1]);
      if (token !== inspectToken || !dns) return;
      const phys = physicalValues(dns, rt.header.bands, rt.header.nodata);
      base.values = dns.map((dn, i) => ({ band: rt.header.bands[i]!.name, dn, value: Number.isNaN(phys[i]!) ? null : phys[i]! }));
      const names = rt.header.bands.map((b) => b.name);
      const exprs = new Set(suggestedExpressions(rt.header.bands));
      if (target.display.mode === 'expression') exprs.add(target.display.expression.trim());
      for (const text of exprs) {
        const parsed = parseBandExpression(text, names);
        if (!parsed.ok) continue;
        const v = evaluate(parsed.ast, (i) => phys[i - 1]!);
        base.indices.push({ name: text.toUpperCase() === text ? text : text.length <= 5 ? text.toUpperCase() : text, value: Number.isFinite(v) ? v : null });
      }
      inspector.value = base;
    } catch {
      // A read that races a closed layer is dropped; the next pointer move reads again.
    }
  }

  function unpinInspector(): void {
    if (inspector.value) inspector.value = { ...inspector.value, pinned: false };
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

  async function makeThumbnail(e: LibraryItem): Promise<string> {
    let file = await RasterFile.open(rasterUrl(e.id));
    try {
      const h = file.header;
      if (!e.bounds4326 && h.bbox && h.epsg != null) {
        const proj = await ensureProjection(h.epsg).catch(() => null);
        if (proj) footprints[e.id] = transformExtent(h.bbox, proj.code, 'EPSG:4326', 8) as [number, number, number, number];
      }
      // A big file without overviews would be read whole: main makes a small quick look of it (or has its copy).
      if (h.overviews === 0 && Math.max(h.width, h.height) > 2048) {
        const prep = await getBridge().libraryPreview({ id: e.id, quickLook: 256 });
        if (!prep.ok || prep.data.rasterId === e.id) return '';
        await file.close();
        file = await RasterFile.open(rasterUrl(prep.data.rasterId));
      }
      const sample = await file.readSample(file.overviewLevel(96), 96);
      const display = defaultDisplay(h.bands);
      const ch = displayChannels(display, h.bands);
      if (!ch.ok) return '';
      const ranges = ch.channels.map((c) => stretchRange(buildHistogram(channelValues(sample, c, h.bands, h.nodata)), display.stretch));
      const rgba = renderSample(sample, ch.channels, h.bands, h.nodata, ranges, display.stretch.gamma, display.ramp);
      return rgbaToDataUrl(rgba, sample.width, sample.height);
    } finally {
      await file.close();
    }
  }

  return {
    entries, placedEntries, loaded, loading, error, importing, importError, notice, filter, sort, thumbnails, footprints,
    layers, activeKey, activeLayer, inspector, compare, groups, groupOf, visibleEntries, seriesSelection, mapReady,
    start, stop, refresh, importPaths, importDialog, remove, reveal, openOnMap, close, zoomTo, setActive,
    setDisplay, setStretch, setManualRange, setOpacity, setVisible, moveLayer, setCompare, setComparePosition,
    seriesCurrent, showSeriesEntry, stepSeries, inspect, unpinInspector,
    /** Exposed for tests and benchmarks: the style variables a layer would get now. */
    styleVariablesOf: (key: string) => {
      const l = layer(key);
      return l ? styleVariables(l.channels, l.ranges, l.display.stretch.gamma) : null;
    },
  };
});
