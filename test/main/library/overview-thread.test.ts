import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOverviewCopy } from '../../../main/library/overview';
import { OverviewWorkers, overviewWorkerEntry } from '../../../main/library/overview-thread';
import { bigStripImage, deflateBombStriped } from '../../fixtures/hostile/tiffs';

// Overview copies are decoded and written in a worker thread, not on main's.

describe('overview copies in a worker thread', () => {
  let dir: string;
  let big: string;
  let workers: OverviewWorkers;
  const buildOverviewCopyInWorker = (...args: Parameters<OverviewWorkers['build']>) => workers.build(...args);
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-ovr-thread-'));
    big = path.join(dir, 'big-strips.tif');
    writeFileSync(big, bigStripImage(1500));
    workers = new OverviewWorkers();
  });
  afterAll(async () => {
    await workers.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the same bytes as the in-thread build, with progress from the worker', async () => {
    const fractions: number[] = [];
    const copy = await buildOverviewCopyInWorker(big, path.join(dir, 'worker.tif'), { signal: new AbortController().signal, onProgress: (f) => fractions.push(f) });
    const same = await buildOverviewCopy(big, path.join(dir, 'main.tif'), { signal: new AbortController().signal });
    expect(copy).toEqual({ ...same, path: path.join(dir, 'worker.tif') });
    expect(readFileSync(copy.path).equals(readFileSync(same.path))).toBe(true);
    expect(fractions.length).toBeGreaterThan(0);
    expect(fractions.at(-1)).toBe(1);
    expect(overviewWorkerEntry().file).toMatch(/overview-worker\.ts$/);
  });

  it('an abort cancels the build: AbortError, no copy and no partial file left', async () => {
    const stop = new AbortController();
    const dest = path.join(dir, 'cancelled.tif');
    const build = buildOverviewCopyInWorker(big, dest, { signal: stop.signal, onProgress: () => stop.abort() });
    await expect(build).rejects.toMatchObject({ name: 'AbortError' });
    // The worker removes its .part before it answers (or is terminated after the grace period).
    await expect.poll(() => readdirSync(dir).filter((f) => f.startsWith('cancelled')), { timeout: 5_000 }).toEqual([]);
    expect(existsSync(dest)).toBe(false);
  });

  it('a deflate bomb fails in the worker at its declared strip size, naming it', async () => {
    const bomb = path.join(dir, 'bomb.tif');
    writeFileSync(bomb, deflateBombStriped());
    await expect(buildOverviewCopyInWorker(bomb, path.join(dir, 'bomb-copy.tif'), { signal: new AbortController().signal }))
      .rejects.toThrow(/inflates to more than its declared 262144 bytes/);
  });

  it('an already aborted signal starts no build', async () => {
    const stop = new AbortController();
    stop.abort();
    await expect(buildOverviewCopyInWorker(big, path.join(dir, 'never.tif'), { signal: stop.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(existsSync(path.join(dir, 'never.tif.part'))).toBe(false);
  });

  it('keeps its threads for the next builds (at most two), after failures and cancels too', async () => {
    // A cancelled build that stops by itself keeps its thread; how long it may take before its thread
    // is terminated instead is not this test's (a loaded machine once took longer than the app's 2 s).
    const fresh = new OverviewWorkers({ cancelGraceMs: 120_000 });
    try {
      expect(fresh.threadCount).toBe(0);
      const signal = new AbortController().signal;
      const copies = await Promise.all([0, 1, 2].map((i) => fresh.build(big, path.join(dir, `pool-${i}.tif`), { signal, decimate: 2, durable: false })));
      expect(copies.map((c) => c.levels[0])).toEqual([0, 1, 2].map(() => ({ width: 750, height: 750 })));
      expect(fresh.threadCount).toBe(2);
      // A cancelled build leaves its thread serving: the cancel reaches the build, which stops in time.
      const stop = new AbortController();
      await expect(fresh.build(big, path.join(dir, 'pool-cancelled.tif'), { signal: stop.signal, onProgress: () => stop.abort() })).rejects.toMatchObject({ name: 'AbortError' });
      expect(existsSync(path.join(dir, 'pool-cancelled.tif.part'))).toBe(false);
      expect(fresh.threadCount).toBe(2);
      const again = await fresh.build(big, path.join(dir, 'pool-again.tif'), { signal, decimate: 3, durable: false });
      expect(again.levels[0]).toEqual({ width: 500, height: 500 });
      expect(fresh.threadCount).toBe(2);
    } finally {
      await fresh.close();
    }
    expect(fresh.threadCount).toBe(0);
    await expect(fresh.build(big, path.join(dir, 'closed.tif'), { signal: new AbortController().signal })).rejects.toThrow(/closed/);
  });
});
