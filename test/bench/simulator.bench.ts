import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import proj4 from 'proj4';
import { readGeoTiffHeader } from '../../main/geotiff/index.js';
import { median, spread, type Figure } from './method.js';

export type { Figure } from './method.js';

const execFileP = promisify(execFile);

/** Starts `npm run simulator`'s entry in a child process and resolves its URL. */
export async function spawnSimulator(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/cli.ts', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /Simulator listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { url, child };
}

/** Peak resident set size of a process, MB (Linux /proc). */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** CPU seconds a process has used so far, all its threads, user and system (Linux /proc, clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  // Fields 14 and 15 (utime, stime) of /proc/<pid>/stat, counted after the command name's closing parenthesis.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** A square AOI of `sizeM` metres in UTM zone 33N, as lon/lat WKT. */
export function utmSquareWkt(sizeM: number, x0 = 380_000, y0 = 5_800_000): string {
  const utm = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
  const corners = [[x0, y0], [x0 + sizeM, y0], [x0 + sizeM, y0 + sizeM], [x0, y0 + sizeM], [x0, y0]];
  const ll = corners.map((c) => proj4(utm, 'EPSG:4326', c));
  return `POLYGON((${ll.map(([x, y]) => `${x!.toFixed(7)} ${y!.toFixed(7)}`).join(', ')}))`;
}

/** Downloads a POST response with curl to /dev/null, so the client is never the bottleneck; returns bytes and seconds. */
export async function curlDownload(url: string, body: unknown, out = '/dev/null'): Promise<{ bytes: number; seconds: number }> {
  const args = ['-sS', '--fail-with-body', '-o', out, '-w', '%{size_download} %{time_total}', '-X', 'POST',
    '-H', 'x-api-key: demo-key', '-H', 'content-type: application/json', '--data-binary', JSON.stringify(body), url];
  const { stdout } = await execFileP('curl', args, { maxBuffer: 1 << 20 });
  const [bytes, seconds] = stdout.trim().split(' ').map(Number);
  return { bytes: bytes!, seconds: seconds! };
}

/** Orders of the key over the AOI when the coverage check is timed. */
const COVERAGE_ORDERS = 300;

/**
 * `simulator-coverage-ms`: a composite request's checks (prepareComposite: coverage by the key's
 * orders, credit, output size), in-process, once the key has {@link COVERAGE_ORDERS} orders over
 * the AOI, each of its own date (as many composites with AutomaticOrderCreation leave them): the
 * median of the last 50 requests, with the first 50's for comparison.
 */
async function benchCoverage(): Promise<Figure> {
  const { startSimulator } = await import('../../simulator/server.js');
  const { prepareComposite } = await import('../../simulator/imagery.js');
  const sim = await startSimulator({});
  try {
    const acc = sim.state.account('demo-key')!;
    const times: number[] = [];
    for (let k = 0; k < COVERAGE_ORDERS; k++) {
      const date = new Date(Date.UTC(2023, 0, 1) + k * 86_400_000).toISOString().slice(0, 10);
      const body = {
        Wkt: utmSquareWkt(20_000, 380_000 + (k % 7) * 3_000), Date: date, Model: 'Stratus2', Resolution: 10, EpsgProjection: 32633,
        Bandnames: 'B2,B3,B4,B8', DataType: 'INT16', AutomaticOrderCreation: true, PixelSelectionMode: 'Intersect',
      };
      const t0 = performance.now();
      prepareComposite(sim.state, acc, body as Parameters<typeof prepareComposite>[2]);
      times.push(performance.now() - t0);
    }
    const first = times.slice(0, 50);
    const last = times.slice(-50);
    return { name: 'simulator-coverage-ms', value: median(last), unit: 'ms', note: `a composite request's checks with ${COVERAGE_ORDERS} of the key's orders over the AOI, median of the last 50 (${spread(last)} ms; the first 50: ${median(first).toFixed(2)} ms)` };
  } finally {
    await sim.close();
  }
}

/** Fresh composites generated, each of its own date (so none is in the cache): the figures are their medians. */
const FRESH_RUNS = 5;

/** A 4,000 x 4,000 px, 4-band INT16 composite: fresh generation (the median of {@link FRESH_RUNS} dates), cached repeat, and the simulator's peak RSS. */
export async function benchSimulator(): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-bench-sim-'));
  const { url, child } = await spawnSimulator(['--cache', path.join(dir, 'cache')]);
  try {
    const bodyOf = (daysAgo: number) => ({
      Wkt: utmSquareWkt(40_000), Date: new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10), Model: 'Stratus2', Resolution: 10,
      EpsgProjection: 32633, Bandnames: 'B2,B3,B4,B8', DataType: 'INT16', AutomaticOrderCreation: true,
    });
    const endpoint = `${url}/api/satelliteimages/process/composite`;
    const fresh: { bytes: number; seconds: number; cpu: number }[] = [];
    for (let k = 0; k < FRESH_RUNS; k++) {
      const cpu0 = cpuSeconds(child.pid!);
      const r = await curlDownload(endpoint, bodyOf(k));
      fresh.push({ ...r, cpu: cpuSeconds(child.pid!) - cpu0 });
    }
    const body = bodyOf(0);
    const cached = await curlDownload(endpoint, body);
    // The same bytes once more, kept this time: the timed ones went to /dev/null, as this disk's speed is not the service's.
    const cachedFile = path.join(dir, 'cached.tif');
    await curlDownload(endpoint, body, cachedFile);
    // The composite's samples at full resolution, uncompressed: what the file holds, whatever it compresses to.
    const h = await readGeoTiffHeader(cachedFile, AbortSignal.timeout(30_000));
    const pixelMb = (h.width * h.height * h.bands * (h.bitsPerSample / 8)) / 1e6;
    const fileRates = fresh.map((f) => f.bytes / 1e6 / f.seconds);
    const pixelRates = fresh.map((f) => pixelMb / f.seconds);
    const cpus = fresh.map((f) => f.cpu);
    const runs = `median of ${FRESH_RUNS} fresh composites of different dates`;
    return [
      await benchCoverage(),
      { name: 'simulator-generate-mbps', value: median(fileRates), unit: 'MB/s', note: `${(median(fresh.map((f) => f.bytes)) / 1e6).toFixed(0)} MB files (DEFLATE), ${runs} (${spread(fileRates, 1)}); the file's rate, which follows the compression: the pixel rate below carries the target` },
      { name: 'simulator-generate-pixel-mbps', value: median(pixelRates), unit: 'MB/s', note: `${h.width} x ${h.height} x ${h.bands} samples of ${h.bitsPerSample} bits, ${pixelMb.toFixed(0)} MB uncompressed at full resolution, ${runs} (${spread(pixelRates, 1)} MB/s, ${spread(fresh.map((f) => f.seconds))} s); target >= 100` },
      { name: 'simulator-generate-cpu-s', value: median(cpus), unit: 's', note: `CPU of the service's process (all threads) per fresh composite, ${runs} (${spread(cpus)} s), ${(pixelMb / median(cpus)).toFixed(0)} MB of samples per CPU-second: on a loaded machine the wall rate follows the cores it gets, this does not` },
      { name: 'simulator-cached-mbps', value: cached.bytes / 1e6 / cached.seconds, unit: 'MB/s', note: 'target >= 500' },
      { name: 'simulator-peak-rss-mb', value: peakRssMb(child.pid!), unit: 'MB', note: 'target < 300' },
    ];
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
