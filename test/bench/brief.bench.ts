import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { importAoi, openRasterOnMap, waitForMap } from '../e2e/workspace-harness.js';
import { writeTestRaster } from '../main/analysis/rasters.js';
import { withAppHost } from './app-host.js';
import type { Figure } from './method.js';

/**
 * `brief-pdf-ms`: an A4 landscape brief of a raster on the map, from "Export PDF" to the file written
 * by main (the map drawn again at 220 dpi, the page laid out, printed by Chromium's print to PDF,
 * published under exports/), in Chromium through the browser host; with main's worst event-loop
 * delay meanwhile (`brief-main-lag-ms`; here the printer's PDF crosses the DevTools socket into
 * main's process, which Electron's printToPDF does off main's loop).
 */
export async function benchBrief(): Promise<Figure[]> {
  return withAppHost('brief', () => undefined, async (h) => {
    const rasters = mkdtempSync(path.join(os.tmpdir(), 'swath-bench-brief-rasters-'));
    try {
      const file = await writeTestRaster(rasters, '2026-06-15', ['B4', 'B8']);
      const page = await h.newPage();
      await waitForMap(page);
      await importAoi(page, 'POLYGON((13.405 52.503, 13.425 52.503, 13.425 52.511, 13.405 52.511, 13.405 52.503))');
      await openRasterOnMap(page, file);
      await page.getByTestId('library-brief').click();
      await page.getByTestId('brief-dialog').waitFor();
      const lag = monitorEventLoopDelay({ resolution: 5 });
      lag.enable();
      const t0 = performance.now();
      await page.getByTestId('brief-export').click();
      await page.waitForFunction(() => /done|failed/.test(document.querySelector('[data-testid="brief-progress"]')?.getAttribute('data-step') ?? ''), undefined, { timeout: 120_000 });
      const ms = performance.now() - t0;
      lag.disable();
      if (await page.getByTestId('brief-error').count()) throw new Error(`the brief failed: ${await page.getByTestId('brief-error').innerText()}`);
      const pdf = (await page.getByTestId('brief-file').innerText()).trim();
      const note = `A4 landscape, map at 220 dpi; ${(statSync(pdf).size / 1e6).toFixed(2)} MB`;
      return [
        { name: 'brief-pdf-ms', value: Math.round(ms), unit: 'ms', note },
        { name: 'brief-main-lag-ms', value: Math.round(lag.max / 1e6), unit: 'ms', note: 'main\'s worst event-loop delay while the brief was drawn, printed and written' },
      ];
    } finally {
      rmSync(rasters, { recursive: true, force: true });
    }
  });
}
