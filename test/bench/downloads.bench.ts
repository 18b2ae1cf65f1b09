import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DownloadQueue } from '../../main/downloads/index.js';
import { LibraryCatalog } from '../../main/library/index.js';
import { ServiceClient } from '../../main/api/index.js';
import { clientBinarySource } from '../../main/services/binary-source.js';
import { curlDownload, spawnSimulator, utmSquareWkt, type Figure } from './simulator.bench.js';

const execFileP = promisify(execFile);

/** Alternating rounds of curl and our path; the median of each is compared. */
const ROUNDS = 3;
const RSS_SAMPLE_MS = 50;

/** Flushes dirty pages (and the discards of deleted files) so the next measurement starts from a quiet disk. */
async function quiesce(): Promise<void> {
  await execFileP('sync');
  await new Promise((r) => setTimeout(r, 300));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** One download through the full client path (queue, streaming, sha256, fsync, verify, publish, library); MB/s and peak RSS growth. */
async function ourDownload(url: string, body: Record<string, unknown>, work: string, round: number): Promise<{ mbps: number; rssGrowthMb: number; bytes: number }> {
  const stateDir = path.join(work, `state-${round}`);
  const targetDir = path.join(work, `ours-${round}`);
  const library = await LibraryCatalog.open({ dir: stateDir });
  // The app's own client path: ServiceClient (undici under Node) feeding the queue.
  const client = new ServiceClient({ baseUrl: url, getKey: async () => 'demo-key', cacheDir: path.join(work, 'spec-cache') });
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
 * simulator child process: `curl -o <file>` against our full client path, alternating, same run.
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
    // Warm the simulator's cache (both contenders then read the same cached file) and our own code
    // path with a small download, so RSS growth measures streaming, not first-time module loading and JIT.
    const warm = await curlDownload(endpoint, body);
    await ourDownload(url, { ...body, Wkt: utmSquareWkt(2_000), Bandnames: 'B2' }, work, -1);
    const curl: number[] = [];
    const ours: number[] = [];
    const rss: number[] = [];
    const runCurl = async (i: number): Promise<void> => {
      await quiesce();
      const out = path.join(work, `curl-${i}.tif`);
      const c = await curlDownload(endpoint, body, out);
      await rm(out, { force: true });
      curl.push(c.bytes / 1e6 / c.seconds);
    };
    const runOurs = async (i: number): Promise<void> => {
      await quiesce();
      const o = await ourDownload(url, body, work, i);
      if (o.bytes !== warm.bytes) throw new Error(`size mismatch: ours ${o.bytes}, curl ${warm.bytes}`);
      ours.push(o.mbps);
      rss.push(o.rssGrowthMb);
    };
    // Alternating who goes first, each from a flushed disk, so neither pays for the other's writeback or discards.
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) {
        await runCurl(i);
        await runOurs(i);
      } else {
        await runOurs(i);
        await runCurl(i);
      }
    }
    const mb = (warm.bytes / 1e6).toFixed(0);
    return [
      { name: 'download-curl-mbps', value: median(curl), unit: 'MB/s', note: `${mb} MB, curl -o file, median of ${ROUNDS}: ${curl.map((x) => x.toFixed(0)).join(', ')}` },
      { name: 'download-ours-mbps', value: median(ours), unit: 'MB/s', note: `queue+stream+fsync+verify+rename+library; sha256 after, in the background, median of ${ROUNDS}: ${ours.map((x) => x.toFixed(0)).join(', ')}` },
      { name: 'download-vs-curl-ratio', value: median(ours) / median(curl), unit: 'x', note: 'ours / curl throughput, target >= 0.9' },
      { name: 'download-rss-growth-mb', value: Math.max(...rss), unit: 'MB', note: `peak RSS growth during our download (worst of ${ROUNDS}: ${rss.map((x) => x.toFixed(0)).join(', ')}), target < 64` },
    ];
  } finally {
    child.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}
