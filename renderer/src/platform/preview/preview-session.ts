import { toRaw } from 'vue';
import { whenMap } from '../map/map-context';
import { RasterLayers, type PointerAt } from '../map/raster-layers';
import { createSwipeControl, type SwipeControl } from '../map/raster-swipe';
import { displayChannels } from '../raster/display';
import { usedBands } from '../raster/layer-style';
import { renderSample } from '../raster/render-sample';
import type { LibraryItem } from '../lib/library-item';
import { histogramsFor, rangesFor, rasterStyle } from './layer-display';
import { LayerOpening, type OpeningSession } from './layer-opening';
import type { AskPreview, LayerRuntime, OpenOptions, PreviewLayer } from './types';

/**
 * The preview's side of the map: the OpenLayers raster layers and quick looks of the rasters
 * open on it, what each needs to be drawn (its file, stretch sample, histograms), and one
 * AbortController per layer, whose abort (closing the layer) cancels the main-side work of its
 * open (the overview copy or quick look being built) through the bridge. The display state the
 * panels show (a {@link PreviewLayer} per layer, stack order, swipe) lives in the preview store,
 * which this reads through its {@link SessionHost}.
 */

/** What the session reads from (and reports to) the display state. */
export interface SessionHost {
  /** The layers, top first (reactive objects). */
  layers(): PreviewLayer[];
  compare: { enabled: boolean; position: number };
  /** The pointer moved over the map, or clicked it. */
  onPointer(at: PointerAt): void;
  /** The swipe divider was dragged to `position` (0..1). */
  onSwipe(position: number): void;
  /** The map is there and the session draws on it. */
  onMapReady(): void;
  /** Asks main how a raster is previewed (the store's bridge call). */
  askPreview: AskPreview;
}

/** The raster layers of one map and the work that opens them. */
export class PreviewSession implements OpeningSession {
  private manager: RasterLayers | null = null;
  private managerPromise: Promise<RasterLayers> | null = null;
  private swipeControl: SwipeControl | null = null;
  private readonly runtimes = new Map<string, LayerRuntime>();
  private readonly controllers = new Map<string, AbortController>();
  /** The raster id main last named for a library id (the file, or its overview copy), opened early on the next open. */
  readonly lastRasterId = new Map<string, string>();

  constructor(private readonly host: SessionHost) {}

  /** Asks main how a raster is previewed, through the host's store. */
  readonly askPreview: AskPreview = (request, signal) => this.host.askPreview(request, signal);

  /** The map's raster layers, once the map exists. */
  get layers(): RasterLayers | null {
    return this.manager;
  }

  /** Waits for the map and returns its raster layers. */
  map(): Promise<RasterLayers> {
    if (this.manager) return Promise.resolve(this.manager);
    this.managerPromise ??= whenMap().then((map) => {
      this.manager = new RasterLayers(map, (at) => this.host.onPointer(at));
      this.host.onMapReady();
      return this.manager;
    });
    return this.managerPromise;
  }

  /** What is drawn for layer `key`, once its file is open. */
  runtime(key: string): LayerRuntime | undefined {
    return this.runtimes.get(key);
  }

  setRuntime(key: string, rt: LayerRuntime): void {
    this.runtimes.set(key, rt);
  }

  /**
   * Opens layer `l` (already in the host's list) for library entry `e`; resolves when it is drawn,
   * failed, or closed. Closing it aborts the open, in the renderer and in main.
   */
  async open(l: PreviewLayer, e: LibraryItem, opts: OpenOptions, find: (l: PreviewLayer) => PreviewLayer | undefined, started = performance.now()): Promise<void> {
    const controller = new AbortController();
    this.controllers.get(l.key)?.abort();
    this.controllers.set(l.key, controller);
    try {
      await new LayerOpening(this, l, e, opts, controller.signal, find, started).run();
    } finally {
      // Opened, failed or closed: nothing of it runs in main any more.
      if (this.controllers.get(l.key) === controller) this.controllers.delete(l.key);
    }
  }

  /** Takes layer `key` off the map and cancels whatever its open still does. */
  close(key: string): void {
    this.controllers.get(key)?.abort();
    this.controllers.delete(key);
    this.discard(key);
  }

  /** Removes what is drawn for `key` (a failed or closed layer). */
  discard(key: string): void {
    this.manager?.remove(key);
    this.runtimes.delete(key);
  }

  /** Puts the map's layers in the host's order (top first) and updates the swipe. */
  syncOrder(): void {
    this.manager?.setOrder(this.host.layers().map((l) => l.key));
    this.syncSwipe();
  }

  /** Swipes the top drawn layer over the others while compare is on and two are drawn. */
  syncSwipe(): void {
    const m = this.manager;
    if (!m) return;
    const { compare } = this.host;
    // Layers drawn now: ready ones, and loading ones showing their quick look.
    const visible = this.host.layers().filter((l) => l.visible && (l.status === 'ready' || m.hasQuickLook(l.key)));
    const top = visible[0];
    if (compare.enabled && top && visible.length >= 2) {
      m.setSwipe({ key: top.key, position: compare.position });
      this.swipeControl ??= createSwipeControl(m.map, compare.position, (p) => this.host.onSwipe(p));
    } else {
      m.setSwipe(null);
      this.swipeControl?.dispose();
      this.swipeControl = null;
    }
  }

  /** Moves the swipe divider's handle. */
  setSwipePosition(position: number): void {
    this.swipeControl?.setPosition(position);
    this.syncSwipe();
  }

  /** Recomputes channels, histograms, ranges and the layer style after a display change. */
  applyDisplay(l: PreviewLayer, rebuildStyle: boolean): void {
    const rt = this.runtimes.get(l.key);
    const ch = displayChannels(l.display, l.bands);
    if (!ch.ok) {
      l.displayError = ch.message;
      return;
    }
    l.displayError = null;
    l.channels = ch.channels;
    if (rt) l.histograms = histogramsFor(rt, l);
    l.ranges = rangesFor(l);
    const m = this.manager;
    if (!rt || !m) return;
    if (rt.quick) this.drawQuickLook(l, rt);
    if (!m.has(l.key)) return;
    const need = usedBands(l.channels);
    const rewarp = rt.slots !== null && need.join() !== rt.slots.join();
    if (rewarp) rt.slots = need;
    const style = rasterStyle(l, rt);
    if (rebuildStyle || rewarp) m.setStyle(l.key, style, rewarp ? need : undefined);
    else m.setVariables(l.key, style.variables);
  }

  /** Draws (or redraws) a layer's quick look with its current display. */
  drawQuickLook(l: PreviewLayer, rt: LayerRuntime): void {
    const q = rt.quick;
    if (!q || !this.manager) return;
    // Raw (non-reactive) inputs: the colouring reads them once per pixel.
    const rgba = renderSample(q.sample, toRaw(l.channels), toRaw(l.bands), rt.header.nodata, toRaw(l.ranges), l.display.stretch.gamma, l.display.ramp);
    this.manager.setQuickLook(l.key, rgba, q.sample.width, q.sample.height, q.extent, { opacity: l.opacity, visible: l.visible });
  }

  /** Applies a layer's opacity and visibility: to the WebGL layer once ready, to its quick look before. */
  showState(l: PreviewLayer): void {
    if (l.status === 'ready') {
      this.manager?.setOpacity(l.key, l.opacity);
      this.manager?.setVisible(l.key, l.visible);
    } else {
      // The WebGL layer stays hidden until it takes over from the quick look.
      this.manager?.setQuickLookState(l.key, { opacity: l.opacity, visible: l.visible });
    }
  }
}
