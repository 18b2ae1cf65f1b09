import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ServiceClient } from '../../main/api/index.js';
import { LibraryCatalog } from '../../main/library/index.js';
import { startSimulator } from '../../main/simulator/index.js';
import * as hostile from '../fixtures/hostile/tiffs.js';
import type { Figure } from './simulator.bench.js';
import { coastlineWkt, SLIVER_WKT } from '../fixtures/hostile/aois.js';

/**
 * `main-event-loop-lag-ms`: the worst event-loop delay of main's services (in this process, as in
 * the app) while hostile inputs go through library import, AOI validation by the embedded demo
 * service (over loopback HTTP) and spec discovery. Target <= 50 ms.
 */
export async function benchHostile(): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-bench-hostile-'));
  const sim = await startSimulator({ apiKeys: { 'bench-key': 'demo-key' } });
  const h = monitorEventLoopDelay({ resolution: 5 });
  try {
    const library = await LibraryCatalog.open({ dir: path.join(dir, 'state') });
    const signal = new AbortController().signal;
    const files = Object.entries({
      samples65535: hostile.samples65535, huge: hostile.hugeDimensions, bomb: hostile.deflateBomb, eof: hostile.offsetPastEof,
      truncated: hostile.truncated, bigEndian: () => hostile.smallImage(false), cyclic: hostile.cyclicIfd, zeroTiles: hostile.zeroSizeTiles,
    }).map(([name, make]) => {
      const file = path.join(dir, `${name}.tif`);
      writeFileSync(file, make());
      return file;
    });
    const aois = [coastlineWkt(100_000), coastlineWkt(20_000), SLIVER_WKT, 'POLYGON((NaN 1, 2 2, 3 1, NaN 1))'];
    const phases: string[] = [];
    /** Worst delay of one phase, kept for the note; the figure is the worst over all of them. */
    const phase = async (name: string, run: () => Promise<void>): Promise<number> => {
      const p = monitorEventLoopDelay({ resolution: 5 });
      p.enable();
      await run();
      p.disable();
      phases.push(`${name} ${(p.max / 1e6).toFixed(0)}`);
      return p.max;
    };
    h.enable();
    await phase('import', async () => {
      for (const f of files) await library.importFile(f, signal).catch(() => undefined);
    });
    for (const [i, wkt] of aois.entries()) await phase(`aoi${i + 1}`, async () => {
      const res = await fetch(`${sim.url}/api/satelliteimages/process/composite/available`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'bench-key' },
        body: JSON.stringify({ Wkt: wkt, Date: '2026-11-01', Model: 'Stratus2', Resolution: 10 }),
      });
      await res.arrayBuffer();
    });
    await phase('spec', async () => {
      const client = new ServiceClient({ baseUrl: sim.url, getKey: async () => 'bench-key', cacheDir: path.join(dir, 'spec-cache') });
      await client.connect();
    });
    h.disable();
    const worst = h.max / 1e6;
    return [{ name: 'main-event-loop-lag-ms', value: worst, unit: 'ms', note: `target <= 50; worst per phase, ms: ${phases.join(', ')}` }];
  } finally {
    h.disable();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
