import { canEncodeVideo } from 'mediabunny';
import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef } from 'vue';
import { ask } from '../../../platform/request';
import type { LibraryItem } from '../../../platform/lib/library-item';
import { defaultDisplay, displayChannels, type DisplaySettings } from '../../../platform/raster/display';
import { ensureProjection } from '../../../platform/raster/projection';
import { RasterFile, rasterUrl, type RasterSample } from '../../../platform/raster/raster-data';
import { useAoiStore } from '../../../platform/stores/aoi';
import { useSessionStore } from '../../../platform/stores/session';
import { seriesPlace } from '../../../platform/lib/place-name';
import { DEFAULT_MIN_VALID, fadeFrames, gifFrameCount, planFrames, pauseFrames, videoFrameCount, type FramePeriod, type FramePlan } from '../model/frames';
import type { FilmFormat, FromEncoder, ToEncoder } from './encode-protocol';
import { useTimelapseOpenStore } from './timelapse-open';
import { colourFrame, filmGrid, FramePainter, frameRanges, GridWarper, sharedRanges, type FilmGrid } from './frame-painter';

/**
 * The timelapse: which library rasters a film shows (a series, a selection, the map's layer), its
 * frame rules, and the film made from them: frames painted here, encoded in a Web Worker
 * (encode-worker.ts), the bytes handed to main in chunks (timelapse:*), which writes the file.
 */

/** The options of a film. */
export interface FilmOptions {
  period: FramePeriod;
  /** Minimum valid share of a frame, 0..1. */
  minValid: number;
  /** Longer side in px (400 to 2,500), or null for the series' own grid. */
  size: number | null;
  fps: number;
  /** Seconds the last frame stays. */
  pauseSeconds: number;
  format: FilmFormat;
  /** One stretch for every frame (so frames compare), or each frame its own. */
  stretch: 'shared' | 'each';
  /** GIF: Floyd-Steinberg dithering onto the film's palette. */
  dither: boolean;
  /** Blended frames between two dates (0: off). */
  fade: number;
}

/** Bytes per `timelapse:chunk` (main takes at most FILM_CHUNK_BYTES). */
const CHUNK = 4 * 1024 * 1024;
/** Frames handed to the encoder ahead of what it has encoded. */
const AHEAD = 2;
/** Rasters opened (asked of main, headers read) at once. */
const OPEN_AT_ONCE = 6;

/** `work` over `items`, at most `limit` at once, the answers in the items' order; the first failure rejects. */
async function inOrder<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** The expression the valid share is measured on: the display's first band (or its expression). */
function validityExpression(display: DisplaySettings, item: LibraryItem): string {
  if (display.mode === 'expression') return display.expression;
  const band = display.mode === 'rgb' ? display.rgb[0] : display.band;
  return item.bands[band - 1] ?? item.bands[0] ?? 'B1';
}

/** The band or index of a display, for the file name: "ndvi", "B4-B3-B2". */
export function displayTag(display: DisplaySettings, bands: readonly string[]): string {
  const name = display.mode === 'expression' ? display.expression : display.mode === 'single' ? (bands[display.band - 1] ?? `band${display.band}`) : display.rgb.map((i) => bands[i - 1] ?? `band${i}`).join('-');
  return name.replace(/[^A-Za-z0-9.+_-]+/g, '').slice(0, 60) || 'bands';
}

export const useTimelapseStore = defineStore('timelapse', () => {
  const aoi = useAoiStore();
  const session = useSessionStore();

  /** Whether the dialog is open (see timelapse-open.ts), and for which rasters. */
  const opener = useTimelapseOpenStore();
  const open = computed(() => opener.open);
  const items = shallowRef<LibraryItem[]>([]);
  const display = ref<DisplaySettings | null>(null);
  const options = reactive<FilmOptions>({ period: 'date', minValid: DEFAULT_MIN_VALID, size: null, fps: 4, pauseSeconds: 1, format: 'webm', stretch: 'shared', dither: false, fade: 0 });
  /** Valid share over the area per raster id (null: not measured). */
  const shares = shallowRef<Map<string, number | null>>(new Map());
  const measuring = ref(false);
  const error = ref<string | null>(null);
  /** Whether this host's encoder has H.264 at the film's size (null: not asked yet). */
  const mp4Supported = ref<boolean | null>(null);
  const progress = ref<{ phase: 'frames' | 'encoding' | 'saving'; done: number; total: number } | null>(null);
  const result = ref<{ file: string; bytes: number; frames: number; width: number; height: number; fps: number; phasesMs: Record<string, number> } | null>(null);
  /** The first frame as a PNG data URL. */
  const preview = ref<string | null>(null);
  /** The shared ranges of the last film (physical units per channel), for checking its colours. */
  const lastRanges = ref<[number, number][] | null>(null);
  let job: { cancel(): void } | null = null;

  const plan = computed<FramePlan>(() => planFrames(items.value.map((e) => ({ id: e.id, date: e.date, validShare: shares.value.get(e.id) ?? null })), options.period, options.minValid));
  const busy = computed(() => progress.value !== null);

  /** The area the valid share is measured over: the AOI, else the rasters' footprints' box. */
  function areaWkt(list: readonly LibraryItem[]): string | null {
    if (aoi.valid && aoi.wkt) return aoi.wkt;
    const boxes = list.map((e) => e.bounds4326).filter((b): b is [number, number, number, number] => !!b);
    if (!boxes.length) return null;
    const [w, s, e, n] = [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
    return `POLYGON((${w} ${s}, ${e} ${s}, ${e} ${n}, ${w} ${n}, ${w} ${s}))`;
  }

  /** Measures every raster's valid share over the area in main's analysis workers. */
  async function measure(): Promise<void> {
    const list = items.value;
    const first = list[0];
    const wkt = areaWkt(list);
    if (!first || !display.value || !wkt) {
      error.value = list.length ? 'These rasters have no footprint to measure their valid share over.' : null;
      measuring.value = false;
      return;
    }
    measuring.value = true;
    try {
      const series = { expression: validityExpression(display.value, first), target: { kind: 'area' as const, aoi: { wkt } }, ids: list.map((e) => e.id) };
      const r = await ask((bridge) => bridge.analysisSeries(series));
      if (!r.ok) {
        error.value = r.error.message;
        return;
      }
      const m = new Map<string, number | null>();
      for (const p of r.data.points) m.set(p.id, p.pixels ? p.valid / p.pixels : null);
      shares.value = m;
    } finally {
      measuring.value = false;
    }
  }

  /** Opens the dialog for these library rasters (a series' dates, a selection, the map's layer and its display). */
  async function openFor(ids: readonly string[], withDisplay?: DisplaySettings): Promise<void> {
    error.value = null;
    result.value = null;
    preview.value = null;
    shares.value = new Map();
    // Measuring from the start: no plan is shown as final before the shares are in.
    measuring.value = true;
    const query = { ids: [...new Set(ids)].slice(0, 500), limit: 500, sort: 'date-asc' as const };
    const r = await ask((bridge) => bridge.libraryQuery(query));
    if (!r.ok) {
      error.value = r.error.message;
      measuring.value = false;
      return;
    }
    items.value = r.data.entries;
    const first = r.data.entries[0];
    if (!first) {
      error.value = 'None of these rasters is in the library.';
      measuring.value = false;
      return;
    }
    const meta = first.bands.map((name) => ({ name, scaling: { scale: 1, offset: 0 } }));
    display.value = withDisplay && displayChannels(withDisplay, meta).ok ? withDisplay : defaultDisplay(meta);
    void checkMp4();
    await measure();
  }

  function close(): void {
    cancel();
    opener.close();
  }

  /** Asks the host's encoder for H.264 at the film's size. */
  async function checkMp4(width = 1000, height = 1000): Promise<boolean> {
    const ok = typeof VideoEncoder !== 'undefined' && (await canEncodeVideo('avc', { width, height }).catch(() => false));
    mp4Supported.value = ok;
    return ok;
  }

  function cancel(): void {
    job?.cancel();
    job = null;
  }

  /** Paints, encodes and writes the film; its file is in `result`. */
  async function make(): Promise<void> {
    const frames = plan.value.frames;
    const d = display.value;
    if (!frames.length || !d || busy.value) return;
    error.value = null;
    result.value = null;
    const controller = new AbortController();
    const worker = new Worker(new URL('./encode-worker.ts', import.meta.url), { type: 'module' });
    let filmId: string | null = null;
    const stop = (): void => {
      controller.abort();
      worker.terminate();
      const id = filmId;
      if (id) void ask((bridge) => bridge.timelapseAbort({ id }));
    };
    job = { cancel: stop };
    const opened: { file: RasterFile; projection: string; date: string }[] = [];
    // Where the time goes: ms of each phase (opening, the shared stretch, painting and encoding, writing).
    const phasesMs: Record<string, number> = {};
    let mark = performance.now();
    const phase = (name: string): void => {
      const now = performance.now();
      phasesMs[name] = Math.round(now - mark);
      mark = now;
    };
    try {
      progress.value = { phase: 'frames', done: 0, total: frames.length };
      // Each raster is asked of main and its header read (a few requests); several at once.
      const slots = await inOrder(frames, OPEN_AT_ONCE, async (f) => {
        const p = await ask((bridge) => bridge.libraryPreview({ id: f.id }), { signal: controller.signal });
        if (!p.ok) throw new Error(p.error.message);
        const file = await RasterFile.open(rasterUrl(p.data.rasterId));
        opened.push({ file, projection: '', date: f.date });
        const item = items.value.find((e) => e.id === f.id)!;
        const epsg = file.header.epsg ?? item.epsg;
        if (epsg == null || !file.header.bbox) throw new Error(`${item.path.split(/[\\/]/).pop()} has no georeferencing (EPSG and extent), so it cannot be placed.`);
        return { file, projection: (await ensureProjection(epsg)).code, date: f.date };
      });
      opened.splice(0, opened.length, ...slots);
      phase('open');
      const grid = filmGrid(opened, options.size);
      const format = options.format;
      if (format === 'mp4' && !(await checkMp4(grid.width, grid.height))) throw new Error(`This system's video encoder has no H.264 at ${grid.width} × ${grid.height}: choose WebM or GIF.`);
      const shared = options.stretch === 'shared' ? await sharedRanges(opened.map((o) => o.file), d, OPEN_AT_ONCE) : null;
      lastRanges.value = shared;
      phase('stretch');
      const rings = aoi.valid && aoi.polygonal ? (aoi.polygonal.type === 'Polygon' ? aoi.polygonal.coordinates : aoi.polygonal.coordinates.flat()) : null;
      const painter = new FramePainter(grid, { aoi: rings as number[][][] | null, service: session.serviceLabel || 'the imagery service' });
      const encoded = runEncoder(worker, controller.signal);
      worker.postMessage({ type: 'start', format, width: grid.width, height: grid.height, fps: options.fps, dither: options.dither } satisfies ToEncoder);
      let paintMs = 0;
      const paintOne = async (i: number): Promise<OffscreenCanvas> => {
        const t0 = performance.now();
        try {
          return await paintFrame(i);
        } finally {
          paintMs += performance.now() - t0;
        }
      };
      const warper = new GridWarper(grid);
      // The next dates' pixels are read while this one is painted and encoded.
      const ahead = new Map<number, Promise<RasterSample | null>>();
      const sampleOf = (i: number): Promise<RasterSample | null> | undefined => {
        if (i >= opened.length) return undefined;
        let p = ahead.get(i);
        if (!p) {
          p = warper.warp(opened[i]!.file, opened[i]!.projection);
          p.catch(() => undefined);
          ahead.set(i, p);
        }
        return p;
      };
      const paintFrame = async (i: number): Promise<OffscreenCanvas> => {
        const o = opened[i]!;
        for (let k = 1; k <= AHEAD; k++) sampleOf(i + k);
        const sample = await sampleOf(i)!;
        ahead.delete(i);
        if (controller.signal.aborted) throw new DOMException('Cancelled', 'AbortError');
        const rgba = sample ? colourFrame(sample, o.file, d, shared ?? frameRanges(sample, d, o.file)) : null;
        return painter.paint(rgba, [grid.width, grid.height], [0, 0], o.date);
      };
      if (format === 'gif') await sendPalette(worker, grid, opened.length, paintOne);
      const pause = pauseFrames(options);
      const fade = fadeFrames(options);
      let sent = 0;
      const send = async (canvas: OffscreenCanvas, repeat: number): Promise<void> => {
        await encoded.waitBelow(sent - AHEAD);
        sent++;
        if (format === 'gif') {
          const rgba = canvas.getContext('2d')!.getImageData(0, 0, grid.width, grid.height).data;
          worker.postMessage({ type: 'frame', rgba, repeat } satisfies ToEncoder, [rgba.buffer]);
        } else {
          const bitmap = canvas.transferToImageBitmap();
          worker.postMessage({ type: 'frame', bitmap, repeat } satisfies ToEncoder, [bitmap]);
        }
      };
      // With a fade, the last date's frame is kept to blend the next one over it.
      const last = fade ? new OffscreenCanvas(grid.width, grid.height) : null;
      const blend = fade ? new OffscreenCanvas(grid.width, grid.height) : null;
      for (let i = 0; i < opened.length; i++) {
        const canvas = await paintOne(i);
        if (i === 0) preview.value = await blobUrl(canvas);
        if (last && blend && i > 0) {
          const b = blend.getContext('2d')!;
          for (let k = 1; k <= fade; k++) {
            b.globalAlpha = 1;
            b.drawImage(last, 0, 0);
            b.globalAlpha = k / (fade + 1);
            b.drawImage(canvas, 0, 0);
            await send(blend, 1);
          }
        }
        if (last) last.getContext('2d')!.drawImage(canvas, 0, 0);
        await send(canvas, i === opened.length - 1 ? 1 + pause : 1);
        progress.value = { phase: 'frames', done: i + 1, total: opened.length };
      }
      progress.value = { phase: 'encoding', done: opened.length, total: opened.length };
      worker.postMessage({ type: 'finish' } satisfies ToEncoder);
      const { bytes, frames: written } = await encoded.done;
      phase('paint-encode');
      phasesMs.paint = Math.round(paintMs);
      const expected = format === 'gif' ? gifFrameCount(opened.length, options) : videoFrameCount(opened.length, options);
      if (written !== expected) throw new Error(`The encoder wrote ${written} frames, not ${expected}.`);
      progress.value = { phase: 'saving', done: 0, total: bytes.byteLength };
      const view = new Uint8Array(bytes);
      const tags = items.value[0]!.bands;
      const film = { format, bytes: view.length, area: areaTag(), index: displayTag(d, tags), first: opened[0]!.date, last: opened.at(-1)!.date, fps: options.fps };
      const begun = await ask((bridge) => bridge.timelapseBegin(film));
      if (!begun.ok) throw new Error(begun.error.message);
      const id = (filmId = begun.data.id);
      for (let at = 0; at < view.length; at += CHUNK) {
        if (controller.signal.aborted) throw new DOMException('Cancelled', 'AbortError');
        const chunk = { id, offset: at, data: base64(view.subarray(at, at + CHUNK)) };
        const r = await ask((bridge) => bridge.timelapseChunk(chunk));
        if (!r.ok) throw new Error(r.error.message);
        progress.value = { phase: 'saving', done: r.data.received, total: view.length };
      }
      const done = await ask((bridge) => bridge.timelapseFinish({ id }));
      filmId = null;
      if (!done.ok) throw new Error(done.error.message);
      phase('write');
      result.value = { ...done.data, frames: written, width: grid.width, height: grid.height, fps: options.fps, phasesMs };
    } catch (e) {
      if (!controller.signal.aborted) error.value = e instanceof Error ? e.message : String(e);
      stop();
    } finally {
      worker.terminate();
      progress.value = null;
      job = null;
      for (const o of opened) void o.file.close();
    }
  }

  /** The area part of the film's name. */
  function areaTag(): string {
    const ext = aoi.valid ? aoi.extent : null;
    const boxes = items.value.map((e) => e.bounds4326).filter((b): b is [number, number, number, number] => !!b);
    const c = ext ?? boxes[0] ?? [0, 0, 0, 0];
    return seriesPlace({ kind: 'area', label: aoi.valid ? aoi.label : null, centre: [(c[0] + c[2]) / 2, (c[1] + c[3]) / 2], areaKm2: aoi.valid ? aoi.areaKm2 : null }).replace(/[^A-Za-z0-9.+_-]+/g, '-').slice(0, 60);
  }

  return { open, items, display, options, shares, measuring, error, mp4Supported, progress, result, preview, lastRanges, plan, busy, openFor, close, cancel, make, measure, checkMp4 };
});

/** A PNG data URL of a canvas (the dialog's frame preview). */
async function blobUrl(canvas: OffscreenCanvas): Promise<string> {
  const blob = await canvas.convertToBlob({ type: 'image/png' });
  return new Promise((resolve) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.readAsDataURL(blob);
  });
}

/**
 * GIF: the film's one palette, from pixels sampled off every frame (every 7th pixel), painted once
 * before the frames are encoded.
 */
async function sendPalette(worker: Worker, grid: FilmGrid, count: number, paint: (i: number) => Promise<OffscreenCanvas>): Promise<void> {
  const per = Math.ceil((grid.width * grid.height) / 7);
  const cap = Math.min(count * per, 4_000_000);
  const sample = new Uint8ClampedArray(cap * 4);
  let at = 0;
  const stride = Math.max(7, Math.ceil((count * grid.width * grid.height) / cap));
  for (let i = 0; i < count; i++) {
    const px = (await paint(i)).getContext('2d')!.getImageData(0, 0, grid.width, grid.height).data;
    for (let k = 0; k < px.length / 4 && at < cap; k += stride) {
      sample.set(px.subarray(k * 4, k * 4 + 4), at * 4);
      at++;
    }
  }
  const rgba = sample.slice(0, at * 4);
  worker.postMessage({ type: 'palette', rgba } satisfies ToEncoder, [rgba.buffer]);
}

/** The worker's answers as promises: frames encoded so far, and the film's bytes. */
function runEncoder(worker: Worker, signal: AbortSignal) {
  let encoded = 0;
  const waiters: { below: number; resolve(): void; reject(e: unknown): void }[] = [];
  let fail: (e: unknown) => void = () => undefined;
  const done = new Promise<{ bytes: ArrayBuffer; frames: number }>((resolve, reject) => {
    fail = (e) => {
      reject(e);
      for (const w of waiters.splice(0)) w.reject(e);
    };
    worker.onmessage = (e: MessageEvent<FromEncoder>) => {
      const m = e.data;
      if (m.type === 'encoded') {
        encoded++;
        for (const w of waiters.filter((x) => encoded > x.below)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      } else if (m.type === 'done') resolve({ bytes: m.bytes, frames: m.frames });
      else fail(new Error(`The encoder failed: ${m.message}`));
    };
    worker.onerror = (e) => fail(new Error(`The encoder failed: ${e.message}`));
    signal.addEventListener('abort', () => fail(new DOMException('Cancelled', 'AbortError')), { once: true });
  });
  done.catch(() => undefined);
  return {
    done,
    /** Resolves once more than `below` frames are encoded (frames are handed over in order). */
    waitBelow(below: number): Promise<void> {
      if (below < 0 || encoded > below) return Promise.resolve();
      return new Promise((resolve, reject) => waiters.push({ below, resolve, reject }));
    },
  };
}
