import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBrowserHost, type BrowserHost } from '../../main/hosts/browser-host';
import { MemoryKeychainBackend } from '../../main/profiles';
import { createApp, type SwathApp } from '../../main/app/app';
import { startSimulator } from '../../simulator';
import { chromiumAvailable, launchChromium } from '../e2e/chromium';
import { buildPreviewHarness } from '../e2e/preview-harness/build';
import { interleaved, median, MIN_PAIRS, ratioFigure, spread, type Figure, type Pairs } from './method.js';

/**
 * The offline preview against GDAL, in the same run on the same files (written by GDAL into a
 * temp dir, never committed), as interleaved pairs (test/bench/method.ts):
 *  - first render of a 4096x4096 4-band INT16 COG, and of the same data striped and uncompressed
 *    (quick look and overview copy built on every first open: the file's modification time is
 *    changed before each one, so no earlier copy is reused), from "open" to the first full-extent
 *    frame in Chromium (the quick look; the WebGL layer's first complete frame is reported too),
 *    against `gdal_translate -outsize 1024 0 -scale -of PNG` on the same file (lower is better;
 *    below 1 we are faster);
 *  - the renderer's memory while previewing a ~1 GB COG (zoomed out, then panned at full resolution).
 */

const SIZE = 4096;
const BANDS = ['B4', 'B3', 'B2', 'B8'];

// More than the minimum, so that two runs agree: 7 pairs of the striped open differed by 17 % between runs.
const PAIRS = MIN_PAIRS + 4;

/** A smooth synthetic landscape with texture (so neither GDAL nor we get an easy constant image). */
function writeSource(dir: string): string {
  const raw = path.join(dir, 'src.raw');
  const plane = SIZE * SIZE;
  const data = new Int16Array(plane * BANDS.length);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const field = ((Math.floor(x / 173) * 7 + Math.floor(y / 211) * 13) % 5) / 4;
      const tex = ((x * 2654435761) ^ (y * 40503)) & 255;
      const i = y * SIZE + x;
      if (x + y < 300) {
        for (let b = 0; b < BANDS.length; b++) data[b * plane + i] = -32768;
        continue;
      }
      data[i] = 400 + field * 900 + tex; // B4
      data[plane + i] = 500 + field * 600 + tex; // B3
      data[2 * plane + i] = 300 + field * 500 + tex; // B2
      data[3 * plane + i] = 2500 + (1 - field) * 2500 + tex * 2; // B8
    }
  }
  writeFileSync(raw, new Uint8Array(data.buffer));
  const bands = BANDS.map((b, i) => `<VRTRasterBand dataType="Int16" band="${i + 1}" subClass="VRTRawRasterBand"><Description>${b}</Description><NoDataValue>-32768</NoDataValue><Scale>0.0001</Scale><Offset>0</Offset>
<SourceFilename relativeToVRT="1">src.raw</SourceFilename><ImageOffset>${i * plane * 2}</ImageOffset><PixelOffset>2</PixelOffset><LineOffset>${SIZE * 2}</LineOffset><ByteOrder>LSB</ByteOrder></VRTRasterBand>`).join('\n');
  const vrt = path.join(dir, 'src.vrt');
  writeFileSync(vrt, `<VRTDataset rasterXSize="${SIZE}" rasterYSize="${SIZE}"><SRS>EPSG:32633</SRS><GeoTransform>380000, 10, 0, 5840000, 0, -10</GeoTransform>
<Metadata><MDI key="IMAGE_DATE">2026-06-14</MDI><MDI key="MODEL_VERSION">Stratus2-1.0</MDI></Metadata>${bands}</VRTDataset>`);
  return vrt;
}

function gdal(args: string[]): void {
  execFileSync(args[0]!, args.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Wall time of GDAL's preview of a file, in ms. */
async function gdalPreviewMs(file: string, dir: string): Promise<number> {
  const t = performance.now();
  gdal(['gdal_translate', '-q', '-outsize', '1024', '0', '-scale', '-of', 'PNG', file, path.join(dir, 'gdal.png')]);
  return performance.now() - t;
}

/** The median ms of each step of the first frame over several opens, in the order they finished. */
function stepsNote(runs: Record<string, number>[]): string {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r)))];
  const med = names.map((n) => [n, median(runs.map((r) => r[n]).filter((v): v is number => v != null))] as const).sort((a, b) => a[1] - b[1]);
  return `first-frame steps, median ms from the open: ${med.map(([n, v]) => `${n} ${v.toFixed(0)}`).join(', ')}`;
}

/** The same pairs' reference against another of our figures collected alongside (e.g. the WebGL frame). */
function withOurs(p: Pairs, ours: number[]): Pairs {
  return { ours, reference: p.reference, ratios: ours.map((o, i) => o / p.reference[i]!) };
}

interface Hooks { __swathPreview: { library: any; preview: any; map: any } }

/**
 * Opens a library raster through the panel's store and returns ms to its first full-extent frame
 * (the quick look) and to the first complete frame of the WebGL layer that replaces it.
 */
async function openMs(page: Page, id: string): Promise<{ first: number; full: number; steps: Record<string, number> }> {
  return page.evaluate(async (key) => {
    const { preview } = (window as unknown as Hooks).__swathPreview;
    for (const l of [...preview.layers]) preview.close(l.key);
    await preview.openOnMap(key);
    const layer = preview.layers.find((l: any) => l.key === key);
    if (!layer || layer.status !== 'ready') throw new Error(`preview failed: ${layer?.message ?? 'no layer'}`);
    while (layer.timing.renderedMs == null) await new Promise((r) => setTimeout(r, 5));
    return { first: layer.timing.firstFrameMs as number, full: layer.timing.renderedMs as number, steps: { ...layer.timing.steps } as Record<string, number> };
  }, id);
}

async function importFile(app: SwathApp, file: string): Promise<string> {
  const res = await app.handlers['library:import']!({ paths: [file] } as never, { signal: new AbortController().signal } as never) as { entries: { id: string }[] };
  return res.entries[0]!.id;
}

/**
 * Resident memory (MiB) of renderer processes, from CDP's process list and /proc: the largest one
 * (the page's: the others are Chromium's idle spare renderers) and all of them together.
 */
async function rendererRssMb(browser: Browser): Promise<{ page: number; all: number }> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const info = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
    let max = 0;
    let sum = 0;
    for (const p of info.processInfo.filter((x) => x.type === 'renderer')) {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.id}/status`, 'utf8'));
        const mb = m ? Number(m[1]) / 1024 : 0;
        max = Math.max(max, mb);
        sum += mb;
      } catch {
        // A renderer that exited between the list and the read.
      }
    }
    return { page: max, all: sum };
  } finally {
    await cdp.detach();
  }
}

/** The preview benchmark (see the module comment). */
export async function benchPreview(): Promise<Figure[]> {
  if (spawnSync('gdal_translate', ['--version']).status !== 0) throw new Error('GDAL (gdal_translate) is needed for the preview benchmark');
  if (!chromiumAvailable()) throw new Error('Chromium is needed for the preview benchmark');
  // SWATH_BENCH_DIR keeps the generated files between runs (for profiling); by default they go.
  const keep = process.env.SWATH_BENCH_DIR;
  const dir = keep ?? mkdtempSync(path.join(os.tmpdir(), 'swath-bench-preview-'));
  let app: SwathApp | null = null;
  let host: BrowserHost | null = null;
  let browser: Browser | null = null;
  try {
    const cog = path.join(dir, 'bench-cog.tif');
    const strip = path.join(dir, 'bench-striped.tif');
    const big = path.join(dir, 'bench-1gb-cog.tif');
    if (!keep || !existsSync(big)) {
      const src = writeSource(dir);
      // The service's layout: uncompressed, pixel-interleaved, 512 px tiles, 2x overviews.
      gdal(['gdal_translate', '-q', '-of', 'COG', '-co', 'BLOCKSIZE=512', '-co', 'COMPRESS=NONE', '-co', 'OVERVIEW_RESAMPLING=AVERAGE', src, cog]);
      gdal(['gdal_translate', '-q', '-of', 'GTiff', '-co', 'TILED=NO', '-co', 'COMPRESS=NONE', '-co', 'INTERLEAVE=PIXEL', src, strip]);
      // ~1 GB: the same landscape at 2.5x the size (nearest), as a COG like the others.
      gdal(['gdal_translate', '-q', '-of', 'COG', '-outsize', '10240', '10240', '-r', 'nearest', '-co', 'BLOCKSIZE=512', '-co', 'COMPRESS=NONE', '-co', 'BIGTIFF=IF_SAFER', src, big]);
      rmSync(path.join(dir, 'src.raw'), { force: true });
    }
    const userData = mkdtempSync(path.join(dir, 'user-'));
    app = await createApp({
      userDataDir: userData, downloadsDir: path.join(dir, 'Downloads'), keychainBackend: new MemoryKeychainBackend(),
      version: '0.0.0-bench', platform: process.platform, startSimulator, emit: (e, p) => host?.emit(e, p),
    });
    host = await startBrowserHost({ rendererDir: await buildPreviewHarness(), handlers: app.handlers, secrets: app.secrets, rasters: app.rasters });
    const ids = { cog: await importFile(app, cog), strip: await importFile(app, strip), big: await importFile(app, big) };
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(host.url);
    await page.waitForFunction(() => !!(window as unknown as Hooks).__swathPreview);

    // Opening `id` to its first frame (also collecting the WebGL layer's and the steps) against
    // GDAL's preview of `file`, in pairs; `before` runs ahead of each of our opens.
    const againstGdal = async (id: string, file: string, before?: () => void) => {
      const full: number[] = [];
      const steps: Record<string, number>[] = [];
      const pairs = await interleaved(PAIRS, async (i) => {
        before?.();
        const r = await openMs(page, id);
        if (i >= 0) {
          full.push(r.full);
          steps.push(r.steps);
        }
        return r.first;
      }, () => gdalPreviewMs(file, dir));
      return { pairs, full, steps };
    };
    const cogRuns = await againstGdal(ids.cog, cog);
    // The striped file, opened for the first time in every pair: a new modification time makes main
    // build its quick look and overview copy again, as for a file never seen.
    let touch = 0;
    const stripRuns = await againstGdal(ids.strip, strip, () => {
      const t = Date.now() / 1000 + ++touch;
      utimesSync(strip, t, t);
    });
    // Reopening the striped file reuses its copy: against opening the COG, in pairs.
    const reopenPairs = await interleaved(PAIRS, async () => (await openMs(page, ids.strip)).first, async () => (await openMs(page, ids.cog)).first);

    // Memory: the 1 GB COG at full extent, then zoomed to full resolution and panned across.
    let peak = 0;
    let peakAll = 0;
    let heapPeak = 0;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const sample = async () => {
      const rss = await rendererRssMb(browser!);
      peak = Math.max(peak, rss.page);
      peakAll = Math.max(peakAll, rss.all);
      const m = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
      heapPeak = Math.max(heapPeak, (m.metrics.find((x) => x.name === 'JSHeapUsedSize')?.value ?? 0) / 2 ** 20);
    };
    await openMs(page, ids.big);
    await sample();
    for (let step = 0; step < 8; step++) {
      await page.evaluate((s) => new Promise<void>((resolve) => {
        const map = (window as unknown as Hooks).__swathPreview.map;
        const view = map.getView();
        const extent = view.calculateExtent(map.getSize());
        if (s === 0) view.setResolution(view.getResolution() / 16);
        else view.setCenter([view.getCenter()[0] + (extent[2] - extent[0]) / 32, view.getCenter()[1] - (extent[3] - extent[1]) / 48]);
        map.once('rendercomplete', () => resolve());
      }), step);
      await sample();
    }
    const bigBytes = statSync(big).size;
    const gdalNote = 'GDAL: gdal_translate -outsize 1024 0 -scale to PNG';
    return [
      ratioFigure('preview-cog-vs-gdal-ratio', cogRuns.pairs, { ours: 'Swath', reference: 'GDAL', unit: 'ms' }, `Swath: open to the first full-extent frame (the quick look, warped to the screen's pixel grid and coloured on the CPU from an overview at most twice as coarse as the screen; refined at screen resolution afterwards); ${gdalNote}; 4096x4096x4 INT16 COG; ${stepsNote(cogRuns.steps)}; lower is better, target <= 0.8`),
      ratioFigure('preview-cog-webgl-vs-gdal-ratio', withOurs(cogRuns.pairs, cogRuns.full), { ours: 'Swath', reference: 'GDAL', unit: 'ms' }, 'Swath: open to the first complete frame of the WebGL layer that replaces the quick look (software WebGL here); informational'),
      ratioFigure('preview-strip-vs-gdal-ratio', stripRuns.pairs, { ours: 'Swath', reference: 'GDAL', unit: 'ms' }, `Swath: first open of the same data striped and uncompressed, including main's quick look of the file (every 4th row and column, as gdal_translate -outsize samples); ${gdalNote}; ${stepsNote(stripRuns.steps)}; lower is better, target <= 1.0`),
      { name: 'preview-strip-full-copy-ms', value: median(stripRuns.full), unit: 'ms', note: `first open until the WebGL layer on the full overview copy (tiled, all levels, built after the quick look) has drawn its first complete frame; median of ${stripRuns.full.length} (${spread(stripRuns.full, 0)})` },
      ratioFigure('preview-strip-reopen-vs-cog-ratio', reopenPairs, { ours: 'striped reopen', reference: 'COG open', unit: 'ms' }, 'the second open reuses the cached copy; target about 1'),
      { name: 'preview-renderer-rss-mb', value: peak, unit: 'MB', note: `peak resident memory of the page's renderer process (CDP SystemInfo + /proc VmRSS) while previewing a ${(bigBytes / 2 ** 30).toFixed(2)} GiB COG (full extent, then full resolution panned); all renderers together ${peakAll.toFixed(0)} MB; JS heap peak ${heapPeak.toFixed(0)} MB (CDP Performance.getMetrics); target < 1024` },
    ];
  } finally {
    await browser?.close().catch(() => undefined);
    await host?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}
