import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openPanel, waitForMap } from '../e2e/workspace-harness.js';
import { writeTestRaster } from '../main/analysis/rasters.js';
import { withAppHost } from './app-host.js';
import type { Figure } from './method.js';

/**
 * `timelapse-100-frames-ms`: a 100-frame WebM (VP9) film at 1,000 px of a 100-date series, from
 * "Make film" to the file written by main (frames painted, encoded in the worker, the bytes
 * chunked to main and published), in Chromium through the browser host; with main's worst
 * event-loop delay meanwhile (`timelapse-main-lag-ms`). Target: under 30 s.
 */
export async function benchTimelapse(): Promise<Figure[]> {
  return withAppHost('timelapse', () => undefined, async (h) => {
    const rasters = mkdtempSync(path.join(os.tmpdir(), 'swath-bench-timelapse-rasters-'));
    const files: string[] = [];
    const day0 = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 100; i++) files.push(await writeTestRaster(rasters, new Date(day0 + i * 3 * 86_400_000).toISOString().slice(0, 10), ['B4', 'B8']));
    const page = await h.newPage();
    await waitForMap(page);
    await openPanel(page, 'library');
    await page.getByTestId('import-path').fill(files.join('\n'));
    await page.getByTestId('import-button').click();
    // The import's end: the library's `added` events, not a poll.
    const library = h.app.library;
    await new Promise<void>((resolve, reject) => {
      const limit = setTimeout(() => done(new Error(`only ${library.list().length} of 100 rasters were imported`)), 300_000);
      const check = (): void => { if (library.list().length >= 100) done(); };
      const done = (e?: Error): void => { clearTimeout(limit); library.off('added', check); if (e) reject(e); else resolve(); };
      library.on('added', check);
      check();
    });
    await page.getByTestId('series-film').first().waitFor({ timeout: 120_000 });
    await page.getByTestId('series-film').first().click();
    const film = page.getByTestId('timelapse-dialog').locator('.film');
    await page.waitForFunction(() => document.querySelector('[data-testid="timelapse-dialog"] .film')?.getAttribute('data-measuring') === 'false', undefined, { timeout: 300_000 });
    if ((await film.getAttribute('data-frames')) !== '100') throw new Error(`the dialog planned ${await film.getAttribute('data-frames')} frames, not 100: ${await page.getByTestId('timelapse-dialog').innerText()}`);
    await page.getByTestId('timelapse-size').fill('1000');
    await page.getByTestId('timelapse-size').press('Tab');
    await page.getByTestId('timelapse-format').selectOption('webm');
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    const t0 = performance.now();
    await page.getByTestId('timelapse-make').click();
    await page.getByTestId('timelapse-result').or(page.getByTestId('timelapse-error')).waitFor({ timeout: 300_000 });
    const ms = performance.now() - t0;
    lag.disable();
    const error = await page.getByTestId('timelapse-error').count();
    if (error) throw new Error(`the film failed: ${await page.getByTestId('timelapse-error').innerText()}`);
    const result = page.getByTestId('timelapse-result');
    const note = `target < 30000; ${await result.getAttribute('data-frames')} frames ${await result.getAttribute('data-width')} x ${await result.getAttribute('data-height')} px; frames of ${await film.getAttribute('data-frames')} dates; ms by phase ${await result.getAttribute('data-phases')}`;
    rmSync(rasters, { recursive: true, force: true });
    return [
      { name: 'timelapse-100-frames-ms', value: Math.round(ms), unit: 'ms', note },
      { name: 'timelapse-main-lag-ms', value: Math.round(lag.max / 1e6), unit: 'ms', note: 'main\'s worst event-loop delay while the film was made and written' },
    ];
  });
}
