import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeMovedRaster, writeTestRaster } from '../main/analysis/rasters';
import { chromiumAvailable } from './chromium';
import { openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// The Library's selection in Chromium, by mouse and by keyboard, and what is made of it: a time
// series (three dates: one row), a raster of the same grid a little to the east (its own row), one
// of another area and one of other bands. The mouse selects a range and toggles a row out; a film of
// a selection over two areas is refused with main's reason; the film of the series and the raster
// east of it, with a fade, is read by ffprobe (VP9, four frames, the blends and the pause, the size
// and rate asked; a blend lies between its dates). The keyboard moves, toggles, extends, selects all and clears; a search hides selected rows, which stay
// selected and are counted; the brief of a selection made by keyboard is one page whose text lists
// every selected date.

const TOOLS = ['ffprobe', 'pdfinfo', 'pdffonts', 'pdftotext', 'pdftoppm'];
const HAS_TOOLS = TOOLS.every((t) => spawnSync(t, ['-v']).error === undefined);
if (!HAS_TOOLS) console.warn(`Missing one of ${TOOLS.join(', ')}: the selection e2e test is skipped (apt-get install ffmpeg poppler-utils).`);
const SERIES = ['2026-04-10', '2026-05-02', '2026-06-15'];
const EAST = '2026-08-20';
const ELSEWHERE = '2026-07-20';
const BANDS = '2026-03-01';
const SHOTS = process.env.SWATH_SHOTS;

describe.skipIf(!chromiumAvailable() || !HAS_TOOLS)('workspace e2e: the Library\'s selection', () => {
  let ws: Workspace;
  const files: string[] = [];
  beforeAll(async () => {
    ws = await openWorkspace();
    mkdirSync(ws.downloadsDir, { recursive: true });
    for (const d of SERIES) files.push(await writeTestRaster(ws.downloadsDir, d, ['B4', 'B8']));
    // About 140 m east: another footprint (its own row), the same grid and most of the area.
    files.push(await writeMovedRaster(ws.downloadsDir, 'east', EAST, ['B4', 'B8'], 0.002));
    files.push(await writeMovedRaster(ws.downloadsDir, 'elsewhere', ELSEWHERE, ['B4', 'B8'], 0.3));
    files.push(await writeMovedRaster(ws.downloadsDir, 'bands', BANDS, ['B4', 'B8', 'B11']));
  });
  afterAll(async () => {
    await ws?.close();
  });

  it('selects by mouse and keyboard, and makes a film and a brief of the selection', async () => {
    const page = ws.page;
    await waitForMap(page);
    await openPanel(page, 'library');
    await page.getByTestId('import-path').fill(files.join('\n'));
    await page.getByTestId('import-button').click();
    await expect.poll(() => ws.app.library.list().length, { timeout: 15_000 }).toBe(6);
    const options = page.locator('[data-testid="library-rows"] [role="row"]');
    await expect.poll(() => options.count(), { timeout: 15_000 }).toBe(4);
    // Newest image first: east, elsewhere, the series (its newest date), bands.
    const rowOf = (i: number) => options.nth(i);
    expect(await page.getByTestId('library-rows').getAttribute('aria-multiselectable')).toBe('true');
    const selectedRows = () => options.evaluateAll((els) => els.filter((e) => e.getAttribute('aria-selected') === 'true').map((e) => Number(e.getAttribute('data-index'))));
    const count = page.getByTestId('selection-count');
    const countText = async () => ((await count.count()) ? (await count.innerText()).trim() : '');

    // Mouse: a click, Shift+click a range, Ctrl+click one row out (on the row, away from its buttons).
    const corner = { position: { x: 3, y: 3 } };
    await rowOf(0).click(corner);
    expect(await selectedRows()).toEqual([0]);
    await rowOf(2).click({ ...corner, modifiers: ['Shift'] });
    expect(await selectedRows()).toEqual([0, 1, 2]);
    await expect.poll(countText).toBe('3 selected (5 rasters)');
    // Two areas: main refuses the film, naming why.
    await page.getByTestId('selection-film').click();
    await expect.poll(async () => ((await page.getByTestId('selection-film-refused').count()) ? page.getByTestId('selection-film-refused').innerText() : '')).toMatch(/elsewhere\.tif covers another area .*select rasters whose footprints overlap/);
    expect(await page.getByTestId('timelapse-dialog').count()).toBe(0);
    await rowOf(1).click({ ...corner, modifiers: ['ControlOrMeta'] });
    expect(await selectedRows()).toEqual([0, 2]);
    await expect.poll(countText).toBe('2 selected (4 rasters)');
    expect(await page.getByTestId('selection-film-refused').count()).toBe(0);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'library-selection.png') });

    // The film of the selection: the series' three dates and the raster east of it, on one grid.
    await page.getByTestId('selection-film').click();
    const dialog = page.getByTestId('timelapse-dialog');
    await dialog.waitFor();
    const film = dialog.locator('.film');
    await expect.poll(() => film.getAttribute('data-measuring'), { timeout: 30_000 }).toBe('false');
    await expect.poll(() => film.getAttribute('data-frames'), { timeout: 30_000 }).toBe('4');
    expect(await dialog.locator('[data-testid="timelapse-frames"] li').evaluateAll((els) => els.map((e) => e.getAttribute('data-date')))).toEqual([...SERIES, EAST]);
    await page.getByTestId('timelapse-size').fill('400');
    await page.getByTestId('timelapse-size').press('Tab');
    await page.getByTestId('timelapse-fps').fill('4');
    await page.getByTestId('timelapse-pause').fill('1');
    // A fade of two blended frames between dates (off by default).
    expect(await page.getByTestId('timelapse-fade').inputValue()).toBe('0');
    await page.getByTestId('timelapse-fade').fill('2');
    await page.getByTestId('timelapse-format').selectOption('webm');
    await page.getByTestId('timelapse-make').click();
    const result = page.getByTestId('timelapse-result');
    await expect.poll(async () => ((await result.count()) ? result.getAttribute('data-file') : null), { timeout: 120_000 }).toMatch(/\.webm$/);
    const movie = (await result.getAttribute('data-file'))!;
    expect(path.basename(movie)).toMatch(/^swath-timelapse-.*-B4-2026-04-10_2026-08-20-4fps(-\d+)?\.webm$/);
    const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_streams', '-of', 'json', movie], { encoding: 'utf8' })).streams[0];
    expect(probe.codec_name).toBe('vp9');
    // Four dates, two blends between each pair, the last frame held 1 s at 4 fps.
    expect(Number(probe.nb_read_frames)).toBe(4 + 3 * 2 + 4);
    expect(probe.r_frame_rate).toBe('4/1');
    expect(Math.max(probe.width, probe.height)).toBe(400);
    // The first blend (a third of the way from the first date to the second) differs from both dates
    // and lies between them: decoded by ffmpeg, its pixels' distance to each is about a third and two thirds.
    const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', movie, '-f', 'rawvideo', '-pix_fmt', 'gray', '-vsync', 'passthrough', '-'], { maxBuffer: 256 * 1024 * 1024 });
    const n = probe.width * probe.height;
    const frame = (i: number) => raw.subarray(i * n, (i + 1) * n);
    const distance = (a: Buffer, b: Buffer) => a.reduce((sum, v, k) => sum + Math.abs(v - b[k]!), 0) / n;
    const [first, blend, second] = [frame(0), frame(1), frame(3)];
    const apart = distance(first, second);
    expect(apart).toBeGreaterThan(5);
    expect(distance(first, blend) / apart).toBeGreaterThan(0.15);
    expect(distance(first, blend) / apart).toBeLessThan(0.5);
    expect(distance(blend, second) / apart).toBeGreaterThan(0.5);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Keyboard: Escape in the list clears; Up/Down move, Space toggles, Shift+Down extends, Ctrl+A selects all.
    await rowOf(0).focus();
    await page.keyboard.press('Escape');
    await expect.poll(countText).toBe('');
    expect(await selectedRows()).toEqual([]);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-index'))).toBe('2');
    await page.keyboard.press('Space');
    await expect.poll(countText).toBe('1 selected (3 rasters)');
    await page.keyboard.press('Shift+ArrowDown');
    await expect.poll(selectedRows).toEqual([2, 3]);
    await page.keyboard.press('Shift+ArrowUp');
    await expect.poll(selectedRows).toEqual([2]);
    await page.keyboard.press('ControlOrMeta+a');
    await expect.poll(countText).toBe('4 selected (6 rasters)');
    await page.keyboard.press('Escape');
    await expect.poll(countText).toBe('');
    // The series (row 2) and east (row 0): Space, Up twice, Space.
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Space');
    await expect.poll(selectedRows).toEqual([0, 2]);

    // A search that hides the series: its rows stay selected, counted as hidden; clearing it shows them.
    await page.getByTestId('library-search').fill('B11');
    await expect.poll(() => options.count()).toBe(1);
    await expect.poll(countText).toBe('2 selected (4 rasters) · 4 hidden by the filters, still selected');
    await page.getByTestId('library-search').fill('');
    await expect.poll(() => options.count()).toBe(4);
    await expect.poll(selectedRows).toEqual([0, 2]);
    await expect.poll(countText).toBe('2 selected (4 rasters)');

    // The brief of the selection, by keyboard: every selected date on the page.
    await page.getByTestId('selection-brief').focus();
    await page.keyboard.press('Enter');
    const brief = page.getByTestId('brief-dialog');
    await brief.waitFor();
    expect(await page.getByTestId('brief-selection').locator('li').evaluateAll((els) => els.map((e) => e.getAttribute('data-date')))).toEqual([...SERIES, EAST]);
    await page.getByTestId('brief-title').fill('Four dates east of Mitte');
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'brief-selection-dialog.png') });
    await page.getByTestId('brief-export').click();
    const progress = page.getByTestId('brief-progress');
    await expect.poll(() => progress.getAttribute('data-step'), { timeout: 90_000 }).toMatch(/done|failed/);
    expect(await page.getByTestId('brief-error').count()).toBe(0);
    const pdf = (await page.getByTestId('brief-file').innerText()).trim();
    expect(path.basename(pdf)).toBe('brief-four-dates-east-of-mitte-2026-04-10_2026-08-20.pdf');
    expect(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' })).toMatch(/^Pages:\s+1$/m);
    for (const line of execFileSync('pdffonts', [pdf], { encoding: 'utf8' }).trim().split('\n').slice(2)) expect(line.trim().split(/\s+/).at(-5), line).toBe('yes');
    const text = execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' });
    for (const needle of ['Four dates east of Mitte', ...SERIES, EAST, 'EPSG:32633']) expect(text, needle).toContain(needle);
    for (const absent of [ELSEWHERE, BANDS]) expect(text, absent).not.toContain(absent);
    if (SHOTS) execFileSync('pdftoppm', ['-r', '80', '-png', '-singlefile', pdf, path.join(SHOTS, 'brief-selection-page')]);
    // The map after the brief: the layers the selection put there, the view where it was.
    expect(ws.pageErrors).toEqual([]);
  });
});
