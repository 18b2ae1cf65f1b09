import type MultiPolygon from 'ol/geom/MultiPolygon';
import { getTransform, transformExtent } from 'ol/proj';
import { getDistance } from 'ol/sphere';
import countries110 from 'virtual:swath-basemap/110m';
import { scaleBar, sourceLines, utcDateLabel } from '../../../platform/cartography';
import { countryFeatures } from '../../../platform/map/basemap';
import { displayChannels, type DisplaySettings } from '../../../platform/raster/display';
import { rangesFor } from '../../../platform/preview/layer-display';
import { buildHistogram } from '../../../platform/raster/histogram';
import { gatherWarp, planWarp, warpIndex, type ToSource, type WarpIndex, type WarpPlan } from '../../../platform/raster/warp';
import { channelValues, sampleArray, type RasterFile, type RasterSample } from '../../../platform/raster/raster-data';
import { renderSample } from '../../../platform/raster/render-sample';
import { overlayLayout, type Box, type PlacedLine } from '../model/overlay';

/**
 * Draws a film's frames: the raster of one date warped onto the film's grid and coloured as the
 * map colours it (render-sample.ts, the CPU twin of the map's style), over the offline basemap's
 * countries, with the AOI outline, the date (UTC), the sources and the area's scale bar burned in.
 */

/** The film's grid: one projection, extent and pixel size for every frame. */
export interface FilmGrid {
  /** "EPSG:<n>", registered with OpenLayers. */
  projection: string;
  /** [minX, minY, maxX, maxY] in the grid's projection. */
  extent: [number, number, number, number];
  width: number;
  height: number;
}

/**
 * The grid of a set of rasters: the first raster's projection, the union of their extents, and
 * either the first raster's own pixel size or the pixel size that makes the longer side `size`
 * px; each side even (video encoders need it), the extent grown to match.
 */
export function filmGrid(files: readonly { file: RasterFile; projection: string }[], size: number | null): FilmGrid {
  const first = files[0]!;
  const projection = first.projection;
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const f of files) {
    const b = f.projection === projection ? f.file.header.bbox! : transformExtent(f.file.header.bbox!, f.projection, projection, 8);
    x0 = Math.min(x0, b[0]!);
    y0 = Math.min(y0, b[1]!);
    x1 = Math.max(x1, b[2]!);
    y1 = Math.max(y1, b[3]!);
  }
  const own = Math.abs(first.file.header.resolution?.[0] ?? (x1 - x0) / first.file.header.width);
  const res = size ? Math.max(x1 - x0, y1 - y0) / size : own;
  const even = (n: number) => Math.max(2, 2 * Math.ceil(n / 2 - 1e-9));
  const width = even((x1 - x0) / res);
  const height = even((y1 - y0) / res);
  return { projection, extent: [x0, y1 - height * res, x0 + width * res, y1], width, height };
}

/** The display of every frame: its channels and the ranges (physical units) each is stretched by. */
export interface FilmStyle {
  display: DisplaySettings;
  /** Per frame (by index) the ranges, or one set shared by every frame. */
  ranges: (index: number) => [number, number][];
}

/** Most raster geometries whose sampling a {@link GridWarper} keeps (8 bytes a film pixel each). */
const PLANS_KEPT = 4;

/**
 * Warps rasters onto the film's grid (nearest neighbour, from the overview level that matches it:
 * platform/raster/warp.ts, as the map's quick look does). Where every film pixel samples is worked
 * out once per raster geometry and reused by every date that shares it (a series: all of them).
 */
export class GridWarper {
  private readonly plans = new Map<string, { plan: WarpPlan; index: WarpIndex } | null>();

  constructor(private readonly grid: FilmGrid) {}

  /** The raster's values on the whole grid (nodata, or NaN, where it does not reach), or null when it misses the grid. */
  async warp(file: RasterFile, projection: string): Promise<RasterSample | null> {
    const g = this.grid;
    const raster = file.warpRaster();
    const key = JSON.stringify([projection, raster]);
    let p = this.plans.get(key);
    if (p === undefined) {
      const plan = planWarp(g.extent, g.width, g.height, getTransform(g.projection, projection) as ToSource, raster, 1);
      p = plan ? { plan, index: warpIndex(plan, raster) } : null;
      if (this.plans.size >= PLANS_KEPT) this.plans.delete(this.plans.keys().next().value!);
      this.plans.set(key, p);
    }
    if (!p) return null;
    await file.tileTable(p.plan.level);
    const got = await Promise.all(file.cachedBlocks(p.plan.level, p.plan.blocks));
    const h = file.header;
    const nb = h.bands.length;
    const n = g.width * g.height;
    const Typed = h.nodata != null ? sampleArray(h.dataType) : null;
    const data = Array.from({ length: nb }, () => (Typed ? new Typed(n).fill(h.nodata!) : new Float32Array(n).fill(NaN)));
    gatherWarp(p.index, got, nb, (i, src, si) => {
      for (let b = 0; b < nb; b++) data[b]![i] = src[si + b]!;
    });
    return { width: g.width, height: g.height, data };
  }
}

/** The display ranges of one warped frame under a display (its own stretch), as the map works them out. */
export function frameRanges(sample: RasterSample, display: DisplaySettings, file: RasterFile): [number, number][] {
  return pooledRanges([[sample, file]], display);
}

/**
 * The ranges of the values of several samples pooled, under a display: the map's rule
 * (layer-display.ts `rangesFor`) over one histogram per channel of every sample's values.
 */
function pooledRanges(samples: readonly [RasterSample, RasterFile][], display: DisplaySettings): [number, number][] {
  const bands = samples[0]![1].header.bands;
  const ch = displayChannels(display, bands);
  if (!ch.ok) throw new Error(ch.message);
  const histograms = ch.channels.map((c) => {
    const parts = samples.map(([s, f]) => channelValues(s, c, f.header.bands, f.header.nodata));
    const all = new Float32Array(parts.reduce((n, a) => n + a.length, 0));
    let at = 0;
    for (const a of parts) {
      all.set(a, at);
      at += a.length;
    }
    return buildHistogram(all);
  });
  return rangesFor({ channels: ch.channels, histograms, display });
}

/**
 * The ranges one stretch shared by every frame gives: the stretch of all frames' values pooled
 * (each frame's small overview), so the same value has the same colour on every date.
 */
export async function sharedRanges(files: readonly RasterFile[], display: DisplaySettings, atOnce: number): Promise<[number, number][]> {
  const samples: [RasterSample, RasterFile][] = [];
  for (let i = 0; i < files.length; i += atOnce) {
    const part = files.slice(i, i + atOnce);
    const read = await Promise.all(part.map((f) => f.readSample(f.overviewLevel(256), 256)));
    read.forEach((s, k) => samples.push([s, part[k]!]));
  }
  return pooledRanges(samples, display);
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** What is drawn around the raster of every frame. */
export interface FrameDecor {
  /** The AOI's rings (lon/lat), or none. */
  aoi: number[][][] | null;
  /** The imagery service's label for the sources line. */
  service: string;
}

/** Paints frames on one canvas of the grid's size (the basemap drawn once, reused by every frame). */
export class FramePainter {
  readonly canvas: OffscreenCanvas;
  private readonly ctx: OffscreenCanvasRenderingContext2D;
  private readonly base: OffscreenCanvas;
  private readonly layer: OffscreenCanvas;
  private readonly scale: ReturnType<typeof scaleBar>;
  private readonly sources: string[];

  constructor(private readonly grid: FilmGrid, private readonly decor: FrameDecor) {
    const { width, height } = grid;
    this.canvas = new OffscreenCanvas(width, height);
    this.ctx = this.canvas.getContext('2d', { willReadFrequently: true })!;
    this.base = new OffscreenCanvas(width, height);
    this.layer = new OffscreenCanvas(width, height);
    const [x0, y0, x1, y1] = grid.extent;
    const toLonLat = getTransform(grid.projection, 'EPSG:4326')!;
    const ym = (y0 + y1) / 2;
    const ground = getDistance(toLonLat([x0, ym]), toLonLat([x1, ym]));
    this.scale = scaleBar(ground > 0 ? ground : 1);
    this.sources = sourceLines({ service: decor.service, basemap: true });
    this.drawBase();
  }

  /** Grid coordinates to canvas pixels. */
  private px(x: number, y: number): [number, number] {
    const [x0, , x1, y1] = this.grid.extent;
    const f = this.grid.width / (x1 - x0);
    return [(x - x0) * f, (y1 - y) * f];
  }

  /** Adds closed rings (coordinates `to` transforms to the grid's) to the context's path. */
  private trace(ctx: OffscreenCanvasRenderingContext2D, rings: readonly (readonly number[][])[], to: (c: number[]) => number[]): void {
    for (const ring of rings) {
      ring.forEach((c, i) => {
        const p = to(c);
        const [x, y] = this.px(p[0]!, p[1]!);
        if (i === 0) ctx.moveTo(x, y);
        else ctx.lineTo(x, y);
      });
      ctx.closePath();
    }
  }

  /** Water, then the countries (1:110m) projected to the grid. */
  private drawBase(): void {
    const ctx = this.base.getContext('2d')!;
    ctx.fillStyle = cssVar('--map-water', '#cfdfea');
    ctx.fillRect(0, 0, this.grid.width, this.grid.height);
    const to = getTransform('EPSG:3857', this.grid.projection)!;
    const view3857 = transformExtent(this.grid.extent, this.grid.projection, 'EPSG:3857', 8);
    ctx.fillStyle = cssVar('--map-land', '#f4f3ee');
    ctx.strokeStyle = cssVar('--map-border', '#9ea6b3');
    ctx.lineWidth = 1;
    for (const f of countryFeatures(countries110)) {
      const geom = f.getGeometry() as MultiPolygon;
      const e = geom.getExtent();
      if (e[0]! > view3857[2]! || e[2]! < view3857[0]! || e[1]! > view3857[3]! || e[3]! < view3857[1]!) continue;
      ctx.beginPath();
      this.trace(ctx, geom.getCoordinates().flat(), to);
      ctx.fill('evenodd');
      ctx.stroke();
    }
  }

  /**
   * Paints one frame: the basemap, the raster's RGBA (on the grid, at `offset` px), the AOI, the
   * date, the scale bar and the sources. Returns the canvas.
   */
  paint(rgba: Uint8ClampedArray | null, size: [number, number], offset: [number, number], date: string): OffscreenCanvas {
    const { ctx } = this;
    const { width, height } = this.grid;
    ctx.globalAlpha = 1;
    ctx.drawImage(this.base, 0, 0);
    if (rgba) {
      const lctx = this.layer.getContext('2d')!;
      lctx.clearRect(0, 0, width, height);
      lctx.putImageData(new ImageData(rgba as Uint8ClampedArray<ArrayBuffer>, size[0], size[1]), offset[0], offset[1]);
      ctx.drawImage(this.layer, 0, 0);
    }
    this.drawAoi();
    this.drawText(date);
    return this.canvas;
  }

  private drawAoi(): void {
    if (!this.decor.aoi) return;
    const { ctx } = this;
    const to = getTransform('EPSG:4326', this.grid.projection)!;
    ctx.beginPath();
    this.trace(ctx, this.decor.aoi, to);
    ctx.lineWidth = Math.max(1.5, this.grid.width / 400);
    ctx.strokeStyle = '#ff2bd6';
    ctx.stroke();
  }

  /** The date (top left), the scale bar (bottom left) and the sources (bottom right), on light boxes that never overlap (model/overlay.ts). */
  private drawText(date: string): void {
    const { ctx } = this;
    const { width, height } = this.grid;
    const font = (px: number, bold: boolean) => `${bold ? '600 ' : ''}${px}px system-ui, sans-serif`;
    const measure = (text: string, px: number, bold: boolean) => {
      ctx.font = font(px, bold);
      return ctx.measureText(text).width;
    };
    const o = overlayLayout(width, height, { date: `${utcDateLabel(date)} UTC`, scaleLabel: this.scale.label, scaleShare: this.scale.share, sources: this.sources }, measure);
    const text = (l: PlacedLine, bold = false) => {
      ctx.font = font(l.px, bold);
      ctx.fillText(l.text, l.x, l.y);
    };
    const box = (b: Box) => ctx.fillRect(b.x, b.y, b.width, b.height);
    ctx.textBaseline = 'top';
    ctx.fillStyle = 'rgba(0,0,0,0.6)';
    box(o.date.box);
    ctx.fillStyle = '#fff';
    text(o.date.line, true);

    ctx.fillStyle = 'rgba(255,255,255,0.8)';
    box(o.scale.box);
    box(o.sources.box);
    ctx.fillStyle = '#111';
    box(o.scale.bar);
    text(o.scale.label);
    for (const l of o.sources.lines) text(l);
  }
}

/** Renders one date's warped sample under a display and ranges: RGBA of the sample's size. */
export function colourFrame(sample: RasterSample, file: RasterFile, display: DisplaySettings, ranges: [number, number][]): Uint8ClampedArray {
  const ch = displayChannels(display, file.header.bands);
  if (!ch.ok) throw new Error(ch.message);
  return renderSample(sample, ch.channels, file.header.bands, file.header.nodata, ranges, display.stretch.gamma, display.ramp);
}
