import type { RasterLayers } from '../map/raster-layers';
import type { LibraryItem } from '../lib/library-item';
import { defaultDisplay, displayChannels } from '../raster/display';
import { usedBands } from '../raster/layer-style';
import { ensureProjection, UnknownProjectionError, type ProjectionInfo } from '../raster/projection';
import { warpQuickLook, type QuickLook } from '../raster/quicklook';
import { RasterFile, rasterUrl } from '../raster/raster-data';
import { previewNote, rasterStyle } from './layer-display';
import type { AskPreview, LayerRuntime, OpenOptions, PreviewAnswer, PreviewLayer } from './types';

/** What an opening needs from the preview session that owns it (PreviewSession implements it). */
export interface OpeningSession {
  /** The raster id main last named for a library id, opened early on the next open. */
  readonly lastRasterId: Map<string, string>;
  /** Asks main how a raster is previewed. */
  readonly askPreview: AskPreview;
  /** The map's raster layers, once the map exists. */
  readonly layers: RasterLayers | null;
  map(): Promise<RasterLayers>;
  setRuntime(key: string, rt: LayerRuntime): void;
  discard(key: string): void;
  syncOrder(): void;
  syncSwipe(): void;
  applyDisplay(l: PreviewLayer, rebuildStyle: boolean): void;
  drawQuickLook(l: PreviewLayer, rt: LayerRuntime): void;
  showState(l: PreviewLayer): void;
}

/**
 * One open of a library raster on the map, step by step: main decides how it is previewed (a
 * quick look of the view first when the file needs an overview copy), the file is opened and
 * placed (EPSG, projection), the first frame is the quick look coloured with the stretch of a
 * small overview, the full copy is asked for, and the WebGL layer replaces the quick look once its
 * tiles are drawn. Every step stops when its layer is closed (the signal) or replaced.
 */

function errorMessage(e: unknown): string {
  if (e instanceof UnknownProjectionError) return e.message;
  const m = e instanceof Error ? e.message : String(e);
  return m || 'The raster could not be read.';
}

/** Longer side (px) of the quick look asked for: about the size of the map on screen. */
function quickLookEdge(m: RasterLayers | null): number {
  const edge = m?.viewState()?.edge ?? Math.ceil(Math.max(globalThis.innerWidth || 0, globalThis.innerHeight || 0) * (globalThis.devicePixelRatio || 1));
  return Math.min(8192, Math.max(256, edge || 1024));
}

/** The open of one layer (see the module comment); {@link run} does it. */
export class LayerOpening {
  constructor(
    private readonly session: OpeningSession,
    private readonly l: PreviewLayer,
    private readonly e: LibraryItem,
    private readonly opts: OpenOptions,
    private readonly signal: AbortSignal,
    /** The reactive layer of this open (by identity: the same id closed and opened again is another layer). */
    private readonly find: (l: PreviewLayer) => PreviewLayer | undefined,
    /** performance.now() when the user asked for the layer (its timings count from there). */
    private readonly started: number,
  ) {}

  private mine(): PreviewLayer | undefined {
    return this.find(this.l);
  }

  /** Records when a step of the first frame finished (ms since the open). */
  private step(name: string): void {
    const x = this.mine();
    if (x && x.timing.firstFrameMs == null) x.timing.steps[name] = Math.round(performance.now() - this.started);
  }

  /** The layer while this open still owns it (not closed, failed or cancelled). */
  private live(): PreviewLayer | undefined {
    const x = this.mine();
    return x && x.status !== 'error' && !this.signal.aborted ? x : undefined;
  }

  private fail(message: string): void {
    const x = this.mine();
    if (!x) return;
    x.status = 'error';
    x.message = message;
    this.session.discard(this.l.key);
  }

  /** Runs the open; never throws (a failure shows on the layer). */
  async run(): Promise<void> {
    try {
      await this.steps();
    } catch (err) {
      this.fail(errorMessage(err));
    }
  }

  private async steps(): Promise<void> {
    const { e, l } = this;
    // What main said last time is opened while it decides again (the file itself for COGs, the
    // cached overview copy for the others).
    const guess = this.session.lastRasterId.get(e.id) ?? e.id;
    const early = RasterFile.open(rasterUrl(guess));
    early.catch(() => undefined);
    let p = await this.ask(quickLookEdge(this.session.layers));
    this.step('answered');
    if (!p) return void early.then((f) => f.close(), () => undefined);
    const cur = this.live();
    if (!cur) return void early.then((f) => f.close(), () => undefined);
    this.showAnswer(cur, p);
    // A copy built just now is a new file under the same id: the early open may have read the old one.
    const reuse = p.rasterId === guess && (p.state !== 'ready' || p.reused);
    const file = reuse ? await early.catch(() => RasterFile.open(rasterUrl(p!.rasterId))) : await RasterFile.open(rasterUrl(p.rasterId));
    if (!reuse) void early.then((f) => f.close(), () => undefined);
    this.step('opened');
    if (p.state !== 'quick-look') this.session.lastRasterId.set(e.id, p.rasterId);
    const projection = await this.place(file);
    this.step('placed');
    if (!projection) return void file.close();
    const m = await this.session.map();
    const rt: LayerRuntime = { slots: null, file, header: file.header, sample: null, histograms: new Map(), projection, quick: null };
    this.session.setRuntime(l.key, rt);
    if (!(await this.firstFrame(m, rt))) return;
    if (p.state === 'quick-look') {
      p = await this.fullCopy(rt);
      if (!p) return;
    }
    await this.showLayer(m, rt, p);
  }

  /** Asks main how the raster is previewed; null when the layer failed or was closed meanwhile. */
  private async ask(quickLook?: number): Promise<PreviewAnswer | null> {
    const r = await this.session.askPreview(quickLook ? { id: this.e.id, quickLook } : { id: this.e.id }, this.signal);
    if (!r.ok) {
      this.fail(r.error.message);
      return null;
    }
    return r.data;
  }

  private showAnswer(cur: PreviewLayer, p: PreviewAnswer): void {
    cur.status = p.state === 'quick-look' ? 'building' : 'loading';
    cur.progress = null;
    cur.rasterId = p.rasterId;
    cur.note = previewNote(p);
  }

  /** Reads where the raster lies and registers its projection; null when it cannot be placed (the layer says why). */
  private async place(file: RasterFile): Promise<ProjectionInfo | null> {
    const header = file.header;
    const epsg = header.epsg ?? this.e.epsg;
    if (epsg == null) return this.failed('This raster has no EPSG code (user-defined or missing CRS), so it cannot be placed on the map.');
    if (!header.bbox) return this.failed('This raster has no georeferencing, so it cannot be placed on the map.');
    const projection = await ensureProjection(epsg);
    const cur = this.live();
    if (!cur) return null;
    cur.epsg = epsg;
    cur.projectionName = `EPSG:${epsg} · ${projection.name}`;
    if (projection.note) cur.note = [cur.note, projection.note].filter(Boolean).join(' ');
    cur.bands = header.bands;
    if (!this.opts.display || this.opts.display.rgb.some((i) => i > header.bands.length)) cur.display = defaultDisplay(header.bands);
    if (!displayChannels(cur.display, cur.bands).ok) cur.display = defaultDisplay(cur.bands);
    return projection;
  }

  private failed(message: string): null {
    this.fail(message);
    return null;
  }

  /**
   * First frame: the quick look of the view, coloured with the stretch of a small overview (worked
   * out while the quick look's blocks are still arriving). It comes from a level up to twice as
   * coarse as the screen (often the stretch's own overview, so one read serves both), then is
   * refined at screen resolution while the WebGL layer loads. False when the layer went meanwhile.
   */
  private async firstFrame(m: RasterLayers, rt: LayerRuntime): Promise<boolean> {
    const { file, header, projection } = rt;
    if (this.opts.zoom !== false) m.fit(header.bbox!, projection.code);
    const view = m.viewState();
    const quickP = view ? warpQuickLook(file, projection.code, view.projection, view.extent, view.resolution, { pixelRatio: 2 }).catch(() => null) : Promise.resolve(null);
    void quickP.then(() => this.step('warped'));
    rt.sample = await file.readSample(file.overviewLevel(256), 512);
    this.step('sampled');
    let cur = this.live();
    if (!cur) return false;
    this.session.applyDisplay(cur, false);
    const quick = await quickP;
    cur = this.live();
    if (!cur) return false;
    this.session.syncOrder();
    rt.quick = quick;
    if (quick && !cur.displayError) {
      this.session.drawQuickLook(cur, rt);
      this.session.syncSwipe();
      this.step('coloured');
      await m.nextRenderComplete();
      const shown = this.mine();
      if (shown && shown.timing.firstFrameMs == null) shown.timing.firstFrameMs = Math.round(performance.now() - this.started);
      if (view) void this.refine(m, rt, quick, view);
    }
    return true;
  }

  /**
   * Replaces a first frame read from a coarser level with one at screen resolution (its blocks are
   * the ones the map's tiles read next, so the WebGL layer finds them cached), unless the WebGL
   * layer took over first or the view moved.
   */
  private async refine(m: RasterLayers, rt: LayerRuntime, first: QuickLook, view: NonNullable<ReturnType<RasterLayers['viewState']>>): Promise<void> {
    const fine = await warpQuickLook(rt.file, rt.projection.code, view.projection, view.extent, view.resolution, { unlessLevel: first.level, signal: this.signal }).catch(() => null);
    const cur = this.live();
    if (!fine || !cur || rt.quick !== first || cur.status === 'ready') return;
    rt.quick = fine;
    if (!cur.displayError) this.session.drawQuickLook(cur, rt);
  }

  /** The full copy (tiled, with overviews) is built now, its progress on the layer; then the layer reads it. */
  private async fullCopy(rt: LayerRuntime): Promise<PreviewAnswer | null> {
    const p = await this.ask();
    if (!p) return null;
    this.session.lastRasterId.set(this.e.id, p.rasterId);
    const quickFile = rt.file;
    const file = await RasterFile.open(rasterUrl(p.rasterId));
    void quickFile.close();
    const cur = this.live();
    if (!cur) {
      void file.close();
      return null;
    }
    rt.file = file;
    rt.header = file.header;
    cur.status = 'loading';
    cur.progress = null;
    cur.rasterId = p.rasterId;
    cur.note = [previewNote(p), rt.projection.note].filter(Boolean).join(' ') || null;
    return p;
  }

  /** The WebGL layer loads under the quick look (invisible) and replaces it once its tiles are drawn. */
  private async showLayer(m: RasterLayers, rt: LayerRuntime, p: PreviewAnswer): Promise<void> {
    const { l } = this;
    let cur = this.live();
    if (!cur) return;
    if (m.warps(rt.projection.code, true)) rt.slots = usedBands(cur.channels);
    await m.add({ key: l.key, url: rasterUrl(p.rasterId), file: rt.file, bands: rt.slots ?? undefined, nodata: rt.header.nodata, projection: rt.projection.code, style: rasterStyle(cur, rt), opacity: 0, visible: cur.visible });
    this.session.syncOrder();
    await m.nextRenderComplete();
    cur = this.live();
    if (!cur) {
      m.remove(l.key);
      return;
    }
    m.removeQuickLook(l.key);
    rt.quick = null;
    cur.status = 'ready';
    this.session.showState(cur);
    this.session.syncSwipe();
    cur.timing.readyMs = Math.round(performance.now() - this.started);
    await m.nextRenderComplete();
    const done = this.mine();
    if (done && done.timing.renderedMs == null) {
      done.timing.renderedMs = Math.round(performance.now() - this.started);
      done.timing.firstFrameMs ??= done.timing.renderedMs;
      performance.mark(`swath-preview-rendered:${this.e.id}`);
    }
  }
}
