import ImageLayer from 'ol/layer/Image';
import type OlMap from 'ol/Map';
import type MapBrowserEvent from 'ol/MapBrowserEvent';
import WebGLTileLayer from 'ol/layer/WebGLTile';
import { transform, transformExtent } from 'ol/proj';
import type RenderEvent from 'ol/render/Event';
import { unByKey } from 'ol/Observable';
import { getRenderPixel } from 'ol/render';
import type DataTileSource from 'ol/source/DataTile';
import GeoTIFF from 'ol/source/GeoTIFF';
import ImageSource from 'ol/source/Image';
import type { RasterStyle } from '../raster/layer-style';
import { RANGE_OPTIONS, type RasterFile } from '../raster/raster-data';
import { canWarpTo, createWarpSource } from './raster-warp-source';
import { PREVIEW_Z_BASE } from './z-order';

/**
 * The raster preview layers on the one map: OpenLayers GeoTIFF sources (Range requests over the
 * raster protocol, raw DNs) drawn by WebGL tile layers whose styles do the scaling, band maths and
 * stretch on the GPU, each with an optional quick-look image (raster/quicklook.ts) shown in its
 * place until its tiles are in. Also the compare swipe, zooming to a raster, and pointer positions for the
 * pixel inspector. Stores drive it; it keeps no app state of its own beyond the layers.
 */

/** What a preview layer is made from. */
export interface PreviewLayerSpec {
  key: string;
  url: string;
  /** When set and the raster's CRS differs from the view's, the raster is warped on the CPU (see raster-warp-source.ts). */
  file?: RasterFile;
  /** File bands (1-based) a warped layer carries; its style must address them by slot (see layer-style.ts). */
  bands?: readonly number[];
  /** Nodata value masked out (transparent where every band has it), or null. */
  nodata: number | null;
  /** "EPSG:<n>", already registered (see raster/projection.ts). */
  projection: string;
  style: RasterStyle;
  opacity: number;
  visible: boolean;
}

/** A pointer position for the inspector: the view coordinate and its projection code. */
export interface PointerAt {
  coordinate: [number, number];
  viewProjection: string;
  /** True for a click (pins the inspector), false while hovering. */
  click: boolean;
}

interface Entry {
  layer: WebGLTileLayer;
  source: GeoTIFF | DataTileSource;
  /** How to rebuild a warped source with other bands; absent for GeoTIFF sources (all bands). */
  rewarp?: (bands: readonly number[]) => DataTileSource;
  /** Ends a pending {@link RasterLayers.add} when the layer goes before its source is ready. */
  abandon?: () => void;
}

/** Where the map is drawn: the layer swiped over the others, and the divider position (0..1 of the width). */
export interface SwipeState {
  key: string;
  position: number;
}


/** Manages the preview layers of one map. */
export class RasterLayers {
  private readonly layers = new Map<string, Entry>();
  /** Stack position of each key (set by setOrder), for layers added later. */
  private readonly zIndexOf = new Map<string, number>();
  private readonly quicks = new Map<string, { layer: ImageLayer<ImageSource>; canvas: HTMLCanvasElement }>();
  private swipe: SwipeState | null = null;
  private readonly listeners: (() => void)[] = [];

  /** Binds to a map; `onPointer` receives hovers and clicks over the map. */
  constructor(readonly map: OlMap, onPointer?: (at: PointerAt) => void) {
    if (onPointer) {
      const handler = (click: boolean) => (e: MapBrowserEvent<PointerEvent | KeyboardEvent | WheelEvent>) => {
        if (e.dragging) return;
        onPointer({ coordinate: e.coordinate as [number, number], viewProjection: this.map.getView().getProjection().getCode(), click });
      };
      const move = handler(false);
      const click = handler(true);
      map.on('pointermove', move);
      map.on('singleclick', click);
      this.listeners.push(() => map.un('pointermove', move), () => map.un('singleclick', click));
    }
  }

  /** Whether a raster in `projection` would be warped here (and so carries only the bands it is given). */
  warps(projection: string, hasFile: boolean): boolean {
    const viewProjection = this.map.getView().getProjection().getCode();
    return hasFile && projection !== viewProjection && canWarpTo(viewProjection);
  }

  /** Adds a layer and resolves when its source has read the GeoTIFF header (rejects with the source's error). */
  async add(spec: PreviewLayerSpec): Promise<void> {
    // A layer already there under this key goes; its quick look and place in the stack stay.
    this.removeTiles(spec.key);
    const viewProjection = this.map.getView().getProjection().getCode();
    if (spec.file && this.warps(spec.projection, true)) {
      const file = spec.file;
      const rewarp = (bands: readonly number[]) => createWarpSource({ file, sourceProjection: spec.projection, viewProjection, nodata: spec.nodata, bands }).source;
      const warped = createWarpSource({ file, sourceProjection: spec.projection, viewProjection, nodata: spec.nodata, bands: spec.bands ?? file.header.bands.map((_, i) => i + 1) });
      const layer = this.newLayer(spec, warped.source);
      layer.setExtent(warped.extent);
      this.layers.set(spec.key, { layer, source: warped.source, rewarp });
      this.attachSwipe(spec.key, layer);
      this.map.addLayer(layer);
      return;
    }
    const source = new GeoTIFF({
      // Nodata is passed explicitly: OpenLayers 10 reads per-band nodata from the wrong array, so
      // from the file alone only band 1's nodata is honoured and nodata pixels stay opaque.
      sources: [{ url: spec.url, ...(spec.nodata != null ? { nodata: spec.nodata } : {}) }],
      normalize: false,
      projection: spec.projection,
      interpolate: false,
      transition: 0,
      sourceOptions: RANGE_OPTIONS,
    });
    const layer = this.newLayer(spec, source);
    const entry: Entry = { layer, source };
    this.layers.set(spec.key, entry);
    this.attachSwipe(spec.key, layer);
    this.map.addLayer(layer);
    await new Promise<void>((resolve, reject) => {
      // Removed before its header arrived: the caller stops waiting.
      entry.abandon = () => reject(new DOMException('The layer was closed.', 'AbortError'));
      const check = (): boolean => {
        const state = source.getState();
        if (state === 'ready') {
          resolve();
          return true;
        }
        if (state === 'error') {
          reject(source.getError() ?? new Error('The GeoTIFF could not be read.'));
          return true;
        }
        return false;
      };
      if (check()) return;
      const onChange = () => {
        if (check()) source.un('change', onChange);
      };
      source.on('change', onChange);
    });
  }

  private newLayer(spec: PreviewLayerSpec, source: GeoTIFF | DataTileSource): WebGLTileLayer {
    return new WebGLTileLayer({
      zIndex: this.zIndexOf.get(spec.key),
      source,
      style: { color: spec.style.color as never, variables: spec.style.variables },
      opacity: spec.opacity,
      visible: spec.visible,
      properties: { swathPreview: spec.key },
      // Tiles of neighbouring zoom levels stay while new ones load, so stepping dates does not flash.
      preload: 1,
      cacheSize: 128,
    });
  }

  /**
   * Shows (or redraws) the quick look of layer `key`: RGBA pixels covering `extent` in the view
   * projection, as a static image at the layer's place in the stack.
   */
  setQuickLook(key: string, rgba: Uint8ClampedArray, width: number, height: number, extent: [number, number, number, number], opts: { opacity: number; visible: boolean }): void {
    let q = this.quicks.get(key);
    if (q && (q.canvas.width !== width || q.canvas.height !== height || q.layer.getExtent()?.join() !== extent.join())) {
      this.removeQuickLook(key);
      q = undefined;
    }
    if (!q) {
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      const image = { image: canvas, extent, resolution: (extent[2] - extent[0]) / width, pixelRatio: 1 };
      // A loader without arguments makes the source static: one image, whatever the view.
      const layer = new ImageLayer({ source: new ImageSource({ loader: () => image, interpolate: false }), extent, properties: { swathPreview: key, quickLook: true } });
      q = { layer, canvas };
      this.quicks.set(key, q);
      this.attachSwipe(key, layer);
      this.map.addLayer(layer);
    }
    q.canvas.getContext('2d')!.putImageData(new ImageData(rgba as Uint8ClampedArray<ArrayBuffer>, width, height), 0, 0);
    q.layer.setOpacity(opts.opacity);
    q.layer.setVisible(opts.visible);
    q.layer.setZIndex(this.layers.get(key)?.layer.getZIndex() ?? this.zIndexOf.get(key) ?? PREVIEW_Z_BASE);
    q.layer.changed();
  }

  /** Opacity and visibility of a quick look only (the tile layer under it stays hidden while it loads). */
  setQuickLookState(key: string, opts: { opacity: number; visible: boolean }): void {
    const q = this.quicks.get(key);
    q?.layer.setOpacity(opts.opacity);
    q?.layer.setVisible(opts.visible);
  }

  /** Whether layer `key` shows a quick look. */
  hasQuickLook(key: string): boolean {
    return this.quicks.has(key);
  }

  /** Removes the quick look of layer `key` (once its tiles are drawn). */
  removeQuickLook(key: string): void {
    const q = this.quicks.get(key);
    if (!q) return;
    this.map.removeLayer(q.layer);
    q.layer.dispose();
    this.quicks.delete(key);
  }

  /** Whether a layer exists. */
  has(key: string): boolean {
    return this.layers.has(key);
  }

  /** Replaces a layer's style (new shader: use when bands or mode change); a warped layer first gets a source carrying `bands`. */
  setStyle(key: string, style: RasterStyle, bands?: readonly number[]): void {
    const e = this.layers.get(key);
    if (!e) return;
    if (bands && e.rewarp) {
      const old = e.source;
      e.source = e.rewarp(bands);
      e.layer.setSource(e.source);
      old.dispose();
    }
    e.layer.setStyle({ color: style.color as never, variables: style.variables });
  }

  /** Updates style variables only (stretch ranges and gamma: no shader rebuild). */
  setVariables(key: string, variables: Record<string, number>): void {
    this.layers.get(key)?.layer.updateStyleVariables(variables);
  }

  /** Layer opacity, 0..1. */
  setOpacity(key: string, opacity: number): void {
    this.layers.get(key)?.layer.setOpacity(opacity);
    this.quicks.get(key)?.layer.setOpacity(opacity);
  }

  /** Shows or hides a layer. */
  setVisible(key: string, visible: boolean): void {
    this.layers.get(key)?.layer.setVisible(visible);
    this.quicks.get(key)?.layer.setVisible(visible);
  }

  /** Stacks layers: `keysTopFirst[0]` is drawn on top. */
  setOrder(keysTopFirst: readonly string[]): void {
    const n = keysTopFirst.length;
    keysTopFirst.forEach((key, i) => {
      const z = PREVIEW_Z_BASE + (n - i);
      this.zIndexOf.set(key, z);
      this.layers.get(key)?.layer.setZIndex(z);
      this.quicks.get(key)?.layer.setZIndex(z);
    });
  }

  /** Removes a layer and frees its GPU resources. */
  remove(key: string): void {
    this.removeQuickLook(key);
    this.zIndexOf.delete(key);
    this.removeTiles(key);
    if (this.swipe?.key === key) this.setSwipe(null);
  }

  /** Removes a key's tile layer only (see {@link add}). */
  private removeTiles(key: string): void {
    const e = this.layers.get(key);
    if (!e) return;
    this.layers.delete(key);
    this.map.removeLayer(e.layer);
    e.layer.dispose();
    e.source.dispose();
    e.abandon?.();
  }

  /** Fits the view to an extent given in `projection` (the raster's CRS or EPSG:4326). */
  fit(extent: [number, number, number, number], projection: string, opts: { duration?: number } = {}): void {
    const view = this.map.getView();
    const target = transformExtent(extent, projection, view.getProjection());
    view.fit(target, { padding: [24, 24, 24, 24], duration: opts.duration ?? 0 });
  }

  /** What the map shows now: extent and projection of the view, device pixel size in view units, and the longer side in device px; null before the map has a size. */
  viewState(): { extent: number[]; resolution: number; projection: string; edge: number } | null {
    const view = this.map.getView();
    const size = this.map.getSize();
    const res = view.getResolution();
    if (!size || !size[0] || !size[1] || !res) return null;
    const ratio = globalThis.devicePixelRatio || 1;
    return { extent: view.calculateExtent(size), resolution: res / ratio, projection: view.getProjection().getCode(), edge: Math.ceil(Math.max(size[0], size[1]) * ratio) };
  }

  /** A view coordinate in another projection. */
  toProjection(coordinate: [number, number], from: string, to: string): [number, number] {
    return transform(coordinate, from, to) as [number, number];
  }

  /**
   * Clips layer `key` to the left of a vertical divider at `position` (0..1 of the map width), so
   * the layers below show on the right; null ends the swipe.
   */
  setSwipe(state: SwipeState | null): void {
    this.swipe = state;
    this.map.render();
  }

  private attachSwipe(key: string, layer: WebGLTileLayer | ImageLayer<ImageSource>): void {
    let clipped = false;
    layer.on('prerender', (event: RenderEvent) => {
      const ctx = event.context;
      if (!ctx || !this.swipe || this.swipe.key !== key) return;
      const size = this.map.getSize();
      if (!size || size[0] === undefined || size[1] === undefined) return;
      if (ctx instanceof CanvasRenderingContext2D) {
        // The quick look (a canvas layer): clip to the left of the divider, in CSS pixels.
        const tl = getRenderPixel(event, [0, 0]);
        const br = getRenderPixel(event, [size[0] * this.swipe.position, size[1]]);
        ctx.save();
        ctx.beginPath();
        ctx.rect(tl[0]!, tl[1]!, br[0]! - tl[0]!, br[1]! - tl[1]!);
        ctx.clip();
        clipped = true;
        return;
      }
      const gl = ctx as WebGLRenderingContext;
      const bottomLeft = getRenderPixel(event, [0, size[1]]);
      const topRight = getRenderPixel(event, [size[0] * this.swipe.position, 0]);
      gl.enable(gl.SCISSOR_TEST);
      gl.scissor(bottomLeft[0]!, bottomLeft[1]!, Math.max(0, topRight[0]! - bottomLeft[0]!), Math.max(0, topRight[1]! - bottomLeft[1]!));
    });
    layer.on('postrender', (event: RenderEvent) => {
      const ctx = event.context;
      if (ctx instanceof CanvasRenderingContext2D) {
        if (clipped) ctx.restore();
        clipped = false;
        return;
      }
      const gl = ctx as WebGLRenderingContext | undefined;
      gl?.disable(gl.SCISSOR_TEST);
    });
  }

  /** Resolves after the next complete render of the map (every visible tile loaded and drawn). */
  nextRenderComplete(timeoutMs = 10_000): Promise<void> {
    return new Promise((resolve) => {
      // A map without an area never completes a render: give up waiting after a while.
      const timer = setTimeout(done, timeoutMs);
      const key = this.map.once('rendercomplete', done);
      function done(): void {
        clearTimeout(timer);
        unByKey(key);
        resolve();
      }
      this.map.render();
    });
  }

  /** Removes every layer and listener. */
  dispose(): void {
    for (const key of new Set([...this.layers.keys(), ...this.quicks.keys()])) this.remove(key);
    for (const off of this.listeners) off();
  }
}
