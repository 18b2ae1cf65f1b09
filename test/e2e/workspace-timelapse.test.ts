import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gdalBand, gdalInfo } from '../main/analysis/gdal-reference';
import { writeTestRaster } from '../main/analysis/rasters';
import { chromiumAvailable } from './chromium';
import { openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// Films through the browser host in Chromium: five dates imported into the Library, two of them
// clouded over (most pixels nodata); the series row's Film… dialog drops those two and lists why,
// and each film (WebM/VP9, MP4/H.264, GIF) is read by ffprobe with the expected codec, frame count,
// size and frame rate. The frames' pixels, decoded by ffmpeg, equal what the map's rule makes of
// GDAL's numbers at known points (the stretch the dialog used, the grey ramp of a single band),
// within a codec tolerance for VP9 and H.264 and the palette's error for GIF.

const HAS_CHROMIUM = chromiumAvailable();
const HAS_FFMPEG = spawnSync('ffprobe', ['-version']).status === 0 && spawnSync('ffmpeg', ['-version']).status === 0;
if (!HAS_FFMPEG) console.warn('ffprobe/ffmpeg not found: the timelapse e2e test is skipped (apt-get install ffmpeg).');
const DATES = ['2026-04-10', '2026-05-02', '2026-06-15', '2026-07-20', '2026-08-20'];
const CLOUDY = new Set(['2026-05-02', '2026-07-20']);
/** Film size (longer side) and speed. */
const SIZE = 400;
const FPS = 4;
const PAUSE_S = 1;
/**
 * Largest difference per channel (0..255) at a known point of a video: VP9 and H.264 at the
 * encoder's highest quality after 4:2:0 chroma subsampling of a grey picture.
 */
const VIDEO_TOLERANCE = 10;
/**
 * A GIF's pixel is a colour of the film's palette: the one nearest the map's colour, looked up by
 * gifenc in RGB565 bins (the first colour of a bin decides it: up to 7 off per channel on top).
 */
const GIF_BIN = 7;

/** Clouds the middle of a file: every band nodata in all but the top fifth of rows (about 80 % invalid). */
function cloud(file: string): void {
  execFileSync('/usr/bin/python3', ['-c', `
import rasterio, sys
with rasterio.open(sys.argv[1], 'r+') as ds:
    nd = ds.nodata if ds.nodata is not None else -32768
    for b in range(1, ds.count + 1):
        a = ds.read(b)
        a[a.shape[0] // 5:, :] = nd
        ds.write(a, b)
`, file]);
}

interface Probe { codec_name: string; width: number; height: number; r_frame_rate: string; nb_read_frames: string }

function ffprobe(file: string): Probe {
  const out = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_streams', '-of', 'json', file], { encoding: 'utf8' }));
  return out.streams[0] as Probe;
}

/** Every frame of a film as RGB24, through ffmpeg. */
function decode(file: string, width: number, height: number): Buffer[] {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-vsync', 'passthrough', '-'], { maxBuffer: 512 * 1024 * 1024 });
  const n = width * height * 3;
  return Array.from({ length: raw.length / n }, (_, i) => raw.subarray(i * n, (i + 1) * n));
}

describe.skipIf(!HAS_CHROMIUM || !HAS_FFMPEG)('workspace e2e: timelapse films', () => {
  let ws: Workspace;
  const files: string[] = [];
  beforeAll(async () => {
    ws = await openWorkspace();
    mkdirSync(ws.downloadsDir, { recursive: true });
    for (const d of DATES) {
      const f = await writeTestRaster(ws.downloadsDir, d, ['B4', 'B8']);
      if (CLOUDY.has(d)) cloud(f);
      files.push(f);
    }
  });
  afterAll(async () => {
    await ws?.close();
  });

  it('drops the cloudy dates, and writes WebM, MP4 and GIF films ffprobe reads whose pixels are the map\'s colours of GDAL\'s values', async () => {
    const page = ws.page;
    await waitForMap(page);
    await openPanel(page, 'library');
    await page.getByTestId('import-path').fill(files.join('\n'));
    await page.getByTestId('import-button').click();
    await expect.poll(() => ws.app.library.list().length, { timeout: 15_000 }).toBe(5);
    await page.getByTestId('time-series').first().waitFor({ timeout: 15_000 });
    // By keyboard: the series row's Film… button.
    await page.getByTestId('series-film').first().focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByTestId('timelapse-dialog');
    await dialog.waitFor();
    const film = dialog.locator('.film');
    await expect.poll(() => film.getAttribute('data-measuring'), { timeout: 30_000 }).toBe('false');
    await expect.poll(() => film.getAttribute('data-frames'), { timeout: 30_000 }).toBe('3');
    const frameDates = await dialog.locator('[data-testid="timelapse-frames"] li').evaluateAll((els) => els.map((e) => e.getAttribute('data-date')));
    expect(frameDates).toEqual(DATES.filter((d) => !CLOUDY.has(d)));
    const dropped = dialog.locator('[data-testid="timelapse-dropped"] li');
    expect(await dropped.evaluateAll((els) => els.map((e) => e.getAttribute('data-date')))).toEqual([...CLOUDY]);
    for (const text of await dropped.allInnerTexts()) expect(text).toMatch(/Clouds or no data: \d+ % valid, below the 80 % minimum\./);

    await page.getByTestId('timelapse-size').fill(String(SIZE));
    await page.getByTestId('timelapse-size').press('Tab');
    await page.getByTestId('timelapse-fps').fill(String(FPS));
    await page.getByTestId('timelapse-pause').fill(String(PAUSE_S));

    const info = gdalInfo(files[0]!);
    const gt = info.geoTransform;
    const [rw, rh] = info.size;
    const b4 = info.bands.find((b) => b.description === 'B4')!;
    const kept = DATES.map((d, i) => ({ d, f: files[i]! })).filter((x) => !CLOUDY.has(x.d));
    for (const format of ['webm', 'mp4', 'gif'] as const) {
      await page.getByTestId('timelapse-format').selectOption(format);
      await page.getByTestId('timelapse-make').click();
      const result = page.getByTestId('timelapse-result');
      await expect.poll(async () => ((await result.count()) ? result.getAttribute('data-file') : null), { timeout: 120_000 }).toMatch(new RegExp(`\\.${format}$`));
      expect(await page.getByTestId('timelapse-error').count()).toBe(0);
      const file = (await result.getAttribute('data-file'))!;
      expect(path.dirname(file)).toBe(path.join(ws.downloadsDir, 'exports'));
      expect(path.basename(file)).toMatch(new RegExp(`^swath-timelapse-aoi-13\\.\\d{3}E52\\.\\d{3}N-B4-2026-04-10_2026-08-20-${FPS}fps(-\\d+)?\\.${format}$`));
      const width = Number(await result.getAttribute('data-width'));
      const height = Number(await result.getAttribute('data-height'));
      expect(width).toBe(SIZE);
      expect(height).toBe(2 * Math.ceil((SIZE * rh) / rw / 2 - 1e-9));

      const probe = ffprobe(file);
      expect(probe.codec_name).toBe({ webm: 'vp9', mp4: 'h264', gif: 'gif' }[format]);
      expect([probe.width, probe.height]).toEqual([width, height]);
      // Videos repeat the last frame for the pause; a GIF holds it by its delay.
      const frames = format === 'gif' ? kept.length : kept.length + PAUSE_S * FPS;
      expect(Number(probe.nb_read_frames)).toBe(frames);
      if (format !== 'gif') expect(probe.r_frame_rate).toBe(`${FPS}/1`);

      // Known points: source pixel centres in the film's middle band (away from the burned-in text).
      const ranges = JSON.parse((await dialog.locator('.film').getAttribute('data-ranges'))!) as [number, number][];
      const [lo, hi] = ranges[0]!;
      const decoded = decode(file, width, height);
      const scale = width / rw;
      const points: [number, number][] = [];
      for (const fx of [0.2, 0.4, 0.6, 0.8]) for (const fy of [0.4, 0.6]) points.push([Math.floor(rw * fx), Math.floor(rh * fy)]);
      // The GIF's palette: every colour its frames use.
      const palette: number[][] = [];
      if (format === 'gif') {
        const seen = new Set<number>();
        for (const fr of decoded) for (let i = 0; i < fr.length; i += 3) seen.add((fr[i]! << 16) | (fr[i + 1]! << 8) | fr[i + 2]!);
        for (const c of seen) palette.push([c >> 16, (c >> 8) & 255, c & 255]);
        expect(palette.length).toBeLessThanOrEqual(256);
      }
      /** How far the palette's nearest colour is from a grey (largest channel difference). */
      const paletteError = (grey: number) => Math.min(...palette.map((c) => Math.max(...c.map((v) => Math.abs(v - grey)))));
      let worst = 0;
      kept.forEach(({ f }, k) => {
        const band = gdalBand(f, b4.band);
        const frame = decoded[k]!;
        for (const [c, r] of points) {
          const dn = band.values[r * rw + c]!;
          const v = dn * (b4.scale ?? 1) + (b4.offset ?? 0);
          const grey = Math.round(255 * Math.min(1, Math.max(0, (v - lo) / (hi - lo))));
          const px = Math.floor((c + 0.5) * scale);
          const py = Math.floor((r + 0.5) * scale);
          const at = (py * width + px) * 3;
          const allowed = format === 'gif' ? paletteError(grey) + GIF_BIN : VIDEO_TOLERANCE;
          for (let ch = 0; ch < 3; ch++) worst = Math.max(worst, Math.abs(frame[at + ch]! - grey) - allowed);
        }
      });
      expect(worst, `${format}: largest difference from the map's colour beyond the tolerance`).toBeLessThanOrEqual(0);
      expect(gt[1]).toBeGreaterThan(0);
      if (format === 'webm') {
        // The frame of a film, to look at: the first one, decoded by ffmpeg (which makes no folder).
        mkdirSync('test-results', { recursive: true });
        execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', file, '-frames:v', '1', path.join('test-results', 'timelapse-frame.png')]);
        await page.screenshot({ path: path.join('test-results', 'timelapse-dialog.png') });
      }
      expect(readFileSync(file).length).toBeGreaterThan(100);
    }
    expect(ws.pageErrors).toEqual([]);
  });
});
