import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DownloadQueue } from '../../main/downloads/index.js';
import { LibraryCatalog } from '../../main/library/index.js';
import { ServiceClient } from '../../main/api/index.js';
import { clientBinarySource } from '../../main/connection/binary-source.js';
import { interleaved, median, MIN_PAIRS, ratioFigure, spread, type Figure } from './method.js';
import { curlDownload, spawnSimulator, utmSquareWkt } from './simulator.bench.js';
import { SecretRegistry } from '../../main/platform/secrets';

const execFileP = promisify(execFile);

// More than the minimum: disk writeback makes single runs wander (two runs of 7 pairs differed by 25 %).
const PAIRS = MIN_PAIRS + 4;
const RSS_SAMPLE_MS = 50;

/** Flushes dirty pages (and the discards of deleted files) so the next measurement starts from a quiet disk. */
async function quiesce(): Promise<void> {
  await execFileP('sync');
  await new Promise((r) => setTimeout(r, 300));
}

/** One download through the full client path (queue, streaming, sha256, fsync, verify, publish, library); MB/s and peak RSS growth. */
async function ourDownload(url: string, body: Record<string, unknown>, work: string, round: number): Promise<{ mbps: number; rssGrowthMb: number; bytes: number }> {
  const stateDir = path.join(work, `state-${round}`);
  const targetDir = path.join(work, `ours-${round}`);
  const library = await LibraryCatalog.open({ dir: stateDir });
  // The app's own client path: ServiceClient (undici under Node) feeding the queue.
  const client = new ServiceClient({ baseUrl: url, getKey: async () => 'demo-key', secrets: new SecretRegistry(), cacheDir: path.join(work, 'spec-cache') });
  await client.connect();
  const source = clientBinarySource(async () => client);
  const queue = await DownloadQueue.open({ stateDir, source, library, concurrency: 1 });
  await new Promise((r) => setTimeout(r, 200));
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, RSS_SAMPLE_MS);
  const t0 = performance.now();
  const job = await queue.add({ kind: 'composite', request: body, targetDir });
  await queue.onIdle();
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  const done = queue.get(job.id)!;
  await queue.close();
  await client.close();
  if (done.state !== 'done' || !done.file) throw new Error(`download failed: ${done.state} ${done.reason ?? ''}`);
  const bytes = statSync(done.file).size;
  await rm(targetDir, { recursive: true, force: true });
  return { mbps: bytes / 1e6 / seconds, rssGrowthMb: (peak - base) / (1024 * 1024), bytes };
}

/**
 * A ~540 MB composite (45 km x 45 km in UTM 33 at 10 m, 10 INT16 bands, with overviews) from a
 * simulator child process, in interleaved pairs: our full client path (which fsyncs before it
 * publishes) against `curl -o <file>` into the same folder followed by an fsync of that file
 * (`sync <file>`), so both sides write the same bytes to the same disk durably. The fsync's own
 * cost is reported apart.
 */
export async function benchDownloads(): Promise<Figure[]> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'swath-bench-dl-'));
  const { url, child } = await spawnSimulator(['--cache', path.join(work, 'cache')]);
  try {
    const body = {
      Wkt: utmSquareWkt(45_000), Date: new Date().toISOString().slice(0, 10), Model: 'Stratus2', Resolution: 10,
      EpsgProjection: 32633, Bandnames: 'all', DataType: 'INT16', AutomaticOrderCreation: true,
    };
    const endpoint = `${url}/api/satelliteimages/process/composite`;
    // One warm-up of each, the same size: curl's fills the simulator's cache (both contenders then read
    // the same cached file); ours brings our code path to the state of the measured runs (modules loaded,
    // JIT done), so neither the ratio nor RSS growth counts first-time costs.
    const warm = await curlDownload(endpoint, body);
    await ourDownload(url, body, work, -1);
    const rss: number[] = [];
    const curlOnly: number[] = [];
    const fsyncMs: number[] = [];
    const pairs = await interleaved(PAIRS, async (i) => {
      await quiesce();
      const o = await ourDownload(url, body, work, i);
      if (o.bytes !== warm.bytes) throw new Error(`size mismatch: ours ${o.bytes}, curl ${warm.bytes}`);
      // Like curl's file after its run (untimed): the disk holds one download at a time.
      await rm(path.join(work, `ours-${i}`), { recursive: true, force: true });
      if (i >= 0) rss.push(o.rssGrowthMb);
      return o.mbps;
    }, async (i) => {
      await quiesce();
      const out = path.join(work, `curl-${i}.tif`);
      const c = await curlDownload(endpoint, body, out);
      const t = performance.now();
      await execFileP('sync', [out]);
      const syncSeconds = (performance.now() - t) / 1000;
      await rm(out, { force: true });
      if (i >= 0) {
        curlOnly.push(c.bytes / 1e6 / c.seconds);
        fsyncMs.push(syncSeconds * 1000);
      }
      return c.bytes / 1e6 / (c.seconds + syncSeconds);
    });
    const mb = (warm.bytes / 1e6).toFixed(0);
    return [
      ratioFigure('download-vs-curl-ratio', pairs, { ours: 'Swath', reference: 'curl + fsync', unit: 'MB/s' }, `${mb} MB; Swath: queue, stream, fsync, verify, publish, library (sha256 after, in the background); curl -o file in the same folder, then sync <file>; higher is better, target >= 0.9`),
      { name: 'download-ours-mbps', value: median(pairs.ours), unit: 'MB/s', note: `durable, median of ${pairs.ours.length} (${spread(pairs.ours, 0)})` },
      { name: 'download-curl-fsync-mbps', value: median(pairs.reference), unit: 'MB/s', note: `curl then fsync, median of ${pairs.reference.length} (${spread(pairs.reference, 0)})` },
      { name: 'download-curl-mbps', value: median(curlOnly), unit: 'MB/s', note: `curl alone, not durable, same runs (${spread(curlOnly, 0)}); informational` },
      { name: 'download-fsync-ms', value: median(fsyncMs), unit: 'ms', note: `what making ${mb} MB durable costs after curl wrote it (${spread(fsyncMs, 0)}); Swath pays the same before it publishes a file` },
      { name: 'download-rss-growth-mb', value: Math.max(...rss), unit: 'MB', note: `peak RSS growth during our download, worst of ${rss.length} (${spread(rss, 0)}); target <= 64` },
    ];
  } finally {
    child.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}
