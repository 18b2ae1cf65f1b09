import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef, toRaw } from 'vue';
import { ask, listen } from '../../../platform/request';
import type { PointerAt } from '../../../platform/map/raster-layers';
import type { LibraryItem } from '../../../platform/lib/library-item';
import type { SeriesGroup, SeriesMember } from '../model/library-model';
import { loadPreviewEngine } from '../../../platform/preview/load-engine';
import type { PreviewSession } from '../../../platform/preview/preview-session';
import type { InspectorReading, OpenOptions, PreviewLayer } from '../../../platform/preview/types';
import { parseBandExpression } from '../../../platform/raster/band-expression';
import { defaultDisplay, isIndexDisplay, type BandMeta, type Channel, type DisplaySettings } from '../../../platform/raster/display';
import { styleVariables } from '../../../platform/raster/layer-style';
import type { StretchSettings } from '../../../platform/raster/stretch';
import { useLibraryStore } from './library';

export type { InspectorReading, PreviewLayer, PreviewStatus } from '../../../platform/preview/types';

function titleOf(e: LibraryItem): string {
  return e.path.split(/[\\/]/).pop() ?? e.id;
}

const unscaled = (names: string[]): BandMeta[] => names.map((name) => ({ name, scaling: { scale: 1, offset: 0 } }));

/**
 * What the map shows of the library: the preview layers (status, display, stretch, opacity,
 * order), the compare swipe, the time-series steps and the pixel inspector. The layers on the map
 * and the work of opening them belong to a {@link PreviewSession}; closing a layer cancels its open.
 */
export const usePreviewStore = defineStore('preview', () => {
  const library = useLibraryStore();
  const layers = ref<PreviewLayer[]>([]);
  const activeKey = ref<string | null>(null);
  const inspector = ref<InspectorReading | null>(null);
  const compare = reactive({ enabled: false, position: 0.5 });
  const seriesSelection = reactive<Record<string, string>>({});
  /** Steps of each series still opening their date. */
  const stepping: Record<string, number> = {};
  const mapReady = shallowRef(false);
  const activeLayer = computed(() => layers.value.find((l) => l.key === activeKey.value) ?? null);
  let inspectToken = 0;
  let unsubscribe: (() => void) | null = null;

  // The session (and the preview engine it lives in) exists from the first open on: before that
  // there are no layers, and the engine's code stays out of the first paint.
  let session: PreviewSession | null = null;
  async function startSession(): Promise<PreviewSession> {
    const engine = await loadPreviewEngine();
    session ??= new engine.PreviewSession({
      layers: () => layers.value,
      compare,
      onPointer: (at) => void inspect(at),
      onSwipe: (p) => setComparePosition(p),
      onMapReady: () => (mapReady.value = true),
      askPreview: (request, signal) => ask((bridge) => bridge.libraryPreview(request), { signal }),
    });
    return session;
  }

  // A raster leaving the library leaves the map first.
  library.$onAction(({ name, args }) => {
    if (name !== 'remove') return;
    for (const key of layers.value.filter((l) => l.entryId === args[0]).map((l) => l.key)) close(key);
  });

  function layer(key: string): PreviewLayer | undefined {
    return layers.value.find((l) => l.key === key);
  }

  /** Overview build progress from main shows on the layers of that raster being opened. */
  function followProgress(): void {
    unsubscribe ??= listen('library:overview-progress', ({ id, fraction }) => {
      for (const l of layers.value) {
        if (l.entryId === id && (l.status === 'preparing' || l.status === 'building')) {
          l.status = 'building';
          l.progress = fraction;
        }
      }
    });
  }

  /**
   * Opens a library raster on the map (the downloads tray calls this too): builds an overview copy
   * first when the file is not cloud optimised, registers its projection, computes the stretch from
   * an overview histogram, and zooms to it unless told not to.
   */
  async function openOnMap(libraryId: string, opts: OpenOptions = {}): Promise<void> {
    const started = performance.now();
    performance.mark(`swath-preview-open:${libraryId}`);
    followProgress();
    const s = await startSession();
    const e = await library.ensure(libraryId);
    if (!e) {
      library.notice = 'That raster is no longer in the library.';
      return;
    }
    const existing = layer(libraryId);
    if (existing && existing.status !== 'error') {
      activeKey.value = libraryId;
      if (opts.zoom !== false) await zoomTo(libraryId);
      return;
    }
    if (existing) close(libraryId);
    const bands = unscaled(e.bands);
    const l: PreviewLayer = {
      key: e.id, entryId: e.id, title: titleOf(e), date: e.date, status: 'preparing', progress: null, message: null, note: null,
      rasterId: null, epsg: e.epsg, projectionName: null, bands, display: opts.display ?? defaultDisplay(bands),
      channels: [], displayError: null, histograms: [], ranges: [], opacity: opts.opacity ?? 1, visible: opts.visible ?? true,
      timing: { firstFrameMs: null, readyMs: null, renderedMs: null, steps: {} },
    };
    const list = [...layers.value];
    list.splice(Math.min(opts.at ?? 0, list.length), 0, l);
    layers.value = list;
    activeKey.value = l.key;
    await s.open(l, e, opts, (x) => layers.value.find((y) => toRaw(y) === x), started);
  }

  /** Closes a preview layer, cancelling its open (in main too). */
  function close(key: string): void {
    session?.close(key);
    layers.value = layers.value.filter((l) => l.key !== key);
    if (activeKey.value === key) activeKey.value = layers.value[0]?.key ?? null;
    if (inspector.value?.layerKey === key) inspector.value = null;
    session?.syncOrder();
  }

  /** Zooms the map to a raster (open or not). */
  async function zoomTo(id: string): Promise<void> {
    const engine = await loadPreviewEngine();
    const s = await startSession();
    const m = await s.map();
    const rt = s.runtime(id);
    if (rt?.header.bbox) return m.fit(rt.header.bbox, rt.projection.code, { duration: 250 });
    const e = library.entry(id);
    if (e?.bounds4326) return m.fit(e.bounds4326, 'EPSG:4326', { duration: 250 });
    // Footprint unknown to main (a CRS it cannot reproject): read the header here.
    try {
      const file = await engine.RasterFile.open(engine.rasterUrl(id));
      const epsg = file.header.epsg;
      if (epsg == null || !file.header.bbox) throw new Error('This raster has no usable georeferencing.');
      const proj = await engine.ensureProjection(epsg);
      m.fit(file.header.bbox, proj.code, { duration: 250 });
    } catch (err) {
      library.notice = err instanceof Error && err.message ? err.message : 'The raster could not be read.';
    }
  }

  function setActive(key: string): void {
    if (layer(key)) activeKey.value = key;
  }

  // ---- display ----

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
    session?.applyDisplay(l, true);
  }

  /** Changes the stretch (mode, percentiles, gamma): only style variables change. */
  function setStretch(key: string, patch: Partial<StretchSettings>): void {
    const l = layer(key);
    if (!l) return;
    l.display = { ...l.display, stretch: { ...l.display.stretch, ...patch } };
    session?.applyDisplay(l, false);
  }

  /** Sets a channel's range by hand (switches the stretch to manual). */
  function setManualRange(key: string, channel: Channel['key'], range: [number, number]): void {
    const l = layer(key);
    if (!l) return;
    const manual: Record<string, [number, number]> = {};
    l.channels.forEach((c, i) => (manual[c.key] = l.ranges[i] ?? [0, 1]));
    manual[channel] = range;
    l.display = { ...l.display, manual, stretch: { ...l.display.stretch, mode: 'manual' } };
    session?.applyDisplay(l, false);
  }

  function setOpacity(key: string, opacity: number): void {
    const l = layer(key);
    if (!l) return;
    l.opacity = Math.min(1, Math.max(0, opacity));
    session?.showState(l);
  }

  function setVisible(key: string, visible: boolean): void {
    const l = layer(key);
    if (!l) return;
    l.visible = visible;
    session?.showState(l);
    session?.syncSwipe();
  }

  /** Moves a layer up (-1, towards the top) or down (+1) in the stack. */
  function moveLayer(key: string, delta: number): void {
    const list = [...layers.value];
    const i = list.findIndex((l) => l.key === key);
    const j = i + delta;
    if (i < 0 || j < 0 || j >= list.length) return;
    [list[i], list[j]] = [list[j]!, list[i]!];
    layers.value = list;
    session?.syncOrder();
  }

  function setCompare(enabled: boolean): void {
    compare.enabled = enabled;
    session?.syncSwipe();
  }

  function setComparePosition(position: number): void {
    compare.position = Math.min(1, Math.max(0, position));
    session?.setSwipePosition(compare.position);
  }

  // ---- time series ----

  /** The entry a series shows: the one open on the map, else the last one chosen, else the newest. */
  function seriesCurrent(g: SeriesGroup): SeriesMember {
    const chosen = g.entries.find((e) => e.id === seriesSelection[g.key]);
    if (chosen && layer(chosen.id)) return chosen;
    return g.entries.find((e) => layer(e.id)) ?? chosen ?? g.entries.at(-1)!;
  }

  /**
   * Shows another date of a series: the open layer of the series is replaced in place, keeping its
   * display, opacity and order. Steps may overlap (a held arrow key): whichever finishes, the series
   * ends with one layer, the last date asked for.
   */
  async function showSeriesEntry(groupKey: string, entryId: string): Promise<void> {
    const g = library.groups.find((x) => x.key === groupKey);
    if (!g) return;
    seriesSelection[groupKey] = entryId;
    stepping[groupKey] = (stepping[groupKey] ?? 0) + 1;
    try {
      await replaceSeriesLayer(g, groupKey, entryId);
    } finally {
      stepping[groupKey]! -= 1;
    }
  }

  async function replaceSeriesLayer(g: SeriesGroup, groupKey: string, entryId: string): Promise<void> {
    const members = new Set(g.entries.map((e) => e.id));
    const open = layers.value.filter((l) => members.has(l.entryId));
    if (!open.some((l) => l.entryId === entryId)) {
      const base = open[0];
      // The same display, opacity, visibility and place in the list as the date it replaces.
      await openOnMap(entryId, base ? { zoom: false, display: base.display, opacity: base.opacity, visible: base.visible, at: layers.value.indexOf(base) } : { zoom: true });
    }
    // The other dates go only once the chosen one is open, so stepping never shows an empty map.
    // A step overtaken by a later one (a held key) that ends first takes only its own date away;
    // the chosen date's step, whenever it ends, takes away every other.
    const chosen = seriesSelection[groupKey];
    const shown = layers.value.find((l) => l.entryId === chosen);
    if (!shown) return;
    const all = entryId === chosen || shown.status === 'ready';
    for (const l of layers.value.filter((x) => members.has(x.entryId) && x.entryId !== chosen && (all || x.entryId === entryId))) close(l.key);
  }

  /** Steps a series by `delta` dates (arrow keys, prev/next). */
  async function stepSeries(groupKey: string, delta: number): Promise<void> {
    const g = library.groups.find((x) => x.key === groupKey);
    if (!g) return;
    // While a step is opening its date, the next one steps on from that date (a held key).
    const from = stepping[groupKey] ? seriesSelection[groupKey] : seriesCurrent(g).id;
    const i = g.entries.findIndex((e) => e.id === from);
    const next = g.entries[Math.min(g.entries.length - 1, Math.max(0, i + delta))]!;
    if (next.id !== g.entries[i]?.id) await showSeriesEntry(groupKey, next.id);
  }

  // ---- pixel inspector ----

  /** Reads every band (and the indices) under a map position; a click pins the reading. */
  async function inspect(at: PointerAt): Promise<void> {
    if (!at.click && inspector.value?.pinned) return;
    const candidates = layers.value.filter((l) => l.status === 'ready' && l.visible);
    const target = candidates.find((l) => l.key === activeKey.value) ?? candidates[0];
    const rt = target && session?.runtime(target.key);
    const m = session?.layers;
    if (!target || !rt || !m) return;
    const token = ++inspectToken;
    try {
      const { readInspector } = await loadPreviewEngine();
      const reading = await readInspector(target, rt, m, at);
      if (reading && token === inspectToken) inspector.value = reading;
    } catch {
      // A read that races a closed layer is dropped; the next pointer move reads again.
    }
  }

  function unpinInspector(): void {
    if (inspector.value) inspector.value = { ...inspector.value, pinned: false };
  }

  return {
    layers, activeKey, activeLayer, inspector, compare, seriesSelection, mapReady,
    openOnMap, close, zoomTo, setActive, setDisplay, setStretch, setManualRange, setOpacity, setVisible, moveLayer,
    setCompare, setComparePosition, seriesCurrent, showSeriesEntry, stepSeries, inspect, unpinInspector,
    /** Exposed for tests and benchmarks: the style variables a layer would get now. */
    styleVariablesOf: (key: string) => {
      const l = layer(key);
      return l ? styleVariables(l.channels, l.ranges, l.display.stretch.gamma) : null;
    },
  };
});
