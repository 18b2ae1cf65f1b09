import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datesFromSearchAvailable, planComposite, type BatchPlan } from '../../../../main/batch-plan/index.js';
import { BatchPartError, batchWorkDir, runBatch, type DownloadPart } from '../../../../main/downloads/batch/index.js';
import { readPartRaster } from '../../../../main/downloads/batch/raster-info.js';
import { demoDate, startTestSim, type TestSim } from '../../../simulator/helpers.js';
import { CONCAVE_AOI, compositeBody, fetchDownloadPart, firstDifference, pixels, removeTempDirs, tempDir } from './helpers.js';

const SMALL_AOI = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';

let t: TestSim;
let date: string;
let plan: BatchPlan;

beforeAll(async () => {
  t = await startTestSim();
  date = await demoDate(t, CONCAVE_AOI);
  plan = planComposite(compositeBody({ Date: date, Resolution: 40, Bandnames: 'B4,B3,B2,B8' }), { maxCompositeAreaKm2: 60, maxTotalBands: 2 });
});
afterAll(async () => {
  await t?.close();
  removeTempDirs();
});

const noProgress = (): void => undefined;

describe('runBatch', () => {
  it('keeps at most `parallelism` part downloads in flight', async () => {
    expect(plan.parts.length).toBeGreaterThanOrEqual(6);
    const inner = fetchDownloadPart(t.url);
    let inFlight = 0;
    let peak = 0;
    const download: DownloadPart = async (...args) => {
      peak = Math.max(peak, ++inFlight);
      try {
        await new Promise((r) => setTimeout(r, 20));
        await inner(...args);
      } finally {
        inFlight--;
      }
    };
    const result = await runBatch(plan, { downloadPart: download, parallelism: 3 }, await tempDir(), AbortSignal.timeout(60_000), noProgress);
    expect(result.kind).toBe('mosaic');
    expect(peak).toBe(3);
  });

  it('cancels cleanly and resumes later with only the missing parts', async () => {
    const dir = await tempDir();
    const ctl = new AbortController();
    const stats = { calls: 0 };
    const inner = fetchDownloadPart(t.url, stats);
    let finished = 0;
    const download: DownloadPart = async (...args) => {
      await inner(...args);
      if (++finished === 2) ctl.abort();
    };
    await expect(runBatch(plan, { downloadPart: download, parallelism: 1 }, dir, ctl.signal, noProgress)).rejects.toMatchObject({ name: 'AbortError' });
    expect(stats.calls).toBe(2);
    // Nothing looks finished: no mosaic, no .part; the two finished parts wait in the parts folder.
    const partsDir = readdirSync(dir);
    expect(partsDir).toHaveLength(1);
    expect(path.join(dir, partsDir[0]!)).toBe(batchWorkDir(plan, dir));
    expect(partsDir[0]).toMatch(/_parts_[0-9a-f]{8}$/);
    const kept = readdirSync(path.join(dir, partsDir[0]!));
    expect(kept.filter((f) => f.endsWith('.tif'))).toHaveLength(2);
    expect(kept.some((f) => f.endsWith('.part'))).toBe(false);

    const again = { calls: 0 };
    const progress: { bytes: number; partsDone: number }[] = [];
    const result = await runBatch(plan, { downloadPart: fetchDownloadPart(t.url, again), parallelism: 2 }, dir, AbortSignal.timeout(60_000), (p) => progress.push(p));
    expect(again.calls).toBe(plan.parts.length - 2);
    expect(progress[0]!.partsDone).toBe(2);
    expect(result.kind).toBe('mosaic');
    expect(readdirSync(dir)).toEqual([path.basename(result.file)]);

    // The resumed mosaic equals one made in a single go.
    const fresh = await runBatch(plan, { downloadPart: fetchDownloadPart(t.url), parallelism: 4 }, await tempDir(), AbortSignal.timeout(60_000), noProgress);
    expect(firstDifference(await pixels(result.file), await pixels(fresh.file))).toBe(-1);
  });

  it('gives a different plan under the same name its own working folder, and discards leftovers on request', async () => {
    const dir = await tempDir();
    const ctl = new AbortController();
    const first = fetchDownloadPart(t.url);
    await expect(
      runBatch(plan, { downloadPart: async (...a) => { await first(...a); ctl.abort(); }, parallelism: 1 }, dir, ctl.signal, noProgress, { name: 'job' }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    const other = planComposite(compositeBody({ Date: date, Resolution: 80, Bandnames: 'B4,B3,B2,B8' }), { maxCompositeAreaKm2: 60, maxTotalBands: 2 });
    expect(batchWorkDir(other, dir, 'job')).not.toBe(batchWorkDir(plan, dir, 'job'));
    const stats = { calls: 0 };
    const result = await runBatch(other, { downloadPart: fetchDownloadPart(t.url, stats), parallelism: 2 }, dir, AbortSignal.timeout(60_000), noProgress, { name: 'job' });
    expect(stats.calls).toBe(other.parts.length);
    expect(path.basename(result.file)).toBe('job.tif');
    expect((await readPartRaster(result.file, AbortSignal.timeout(5000))).pixelSize).toBe(80);
    // The first plan's finished part is still there for its resume.
    expect(readdirSync(batchWorkDir(plan, dir, 'job')).filter((f) => f.endsWith('.tif'))).toHaveLength(1);
  });

  it('keeps the parts in <name>_parts when asked, beside the mosaic', async () => {
    const dir = await tempDir();
    const result = await runBatch(plan, { downloadPart: fetchDownloadPart(t.url), parallelism: 4 }, dir, AbortSignal.timeout(60_000), noProgress, { name: 'kept', keepParts: true });
    expect(result.kind).toBe('mosaic');
    expect(readdirSync(dir).sort()).toEqual(['kept.tif', 'kept_parts']);
    expect(result.parts).toHaveLength(plan.parts.length);
    expect(readdirSync(path.join(dir, 'kept_parts')).sort()).toEqual(result.parts.map((f) => path.basename(f)).sort());
  });

  it('fails with the failing part and its error kind, and stops the other downloads', async () => {
    const dir = await tempDir();
    const started: string[] = [];
    const aborted: string[] = [];
    // The other parts started beside the failing one hang until their signal aborts (a part that is
    // never stopped keeps the batch from settling, and the test fails on its timeout).
    const download: DownloadPart = async (_body, target, signal) => {
      started.push(path.basename(target));
      if (target.endsWith('part-002.tif')) {
        throw Object.assign(new Error('Bandnames is invalid'), { kind: 'validation' });
      }
      if (!signal.aborted) await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      aborted.push(path.basename(target));
      throw signal.reason;
    };
    const err = await runBatch(plan, { downloadPart: download, parallelism: 3 }, dir, AbortSignal.timeout(60_000), noProgress).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BatchPartError);
    expect(err).toMatchObject({ kind: 'validation', part: 1, partsTotal: plan.parts.length });
    expect((err as Error).message).toMatch(/Part 2 of \d+ failed: Bandnames is invalid/);
    // Both others were stopped, and no part started after the failure.
    expect(plan.parts.length).toBeGreaterThan(3);
    expect(started).toHaveLength(3);
    expect(aborted.sort()).toEqual(started.filter((f) => !f.endsWith('part-002.tif')).sort());
    expect(readdirSync(dir).some((f) => f.endsWith('.tif'))).toBe(false);
  });

  it('downloads a single plan straight to its file, never over an existing one', async () => {
    const dir = await tempDir();
    const single = planComposite(compositeBody({ Date: date, Wkt: SMALL_AOI }), { maxCompositeAreaKm2: 2500, maxTotalBands: 12 });
    expect(single.kind).toBe('single');
    const name = `composite_${date.replaceAll('-', '')}_B4-B3-B2_Stratus2_32633_20m`;
    writeFileSync(path.join(dir, `${name}.tif`), 'someone else\'s file');
    const progress: number[] = [];
    const result = await runBatch(single, { downloadPart: fetchDownloadPart(t.url), parallelism: 2 }, dir, AbortSignal.timeout(60_000), (p) => progress.push(p.fraction));
    expect(result).toMatchObject({ kind: 'single', parts: [], reason: null });
    expect(path.basename(result.file)).toBe(`${name} (1).tif`);
    expect(progress[progress.length - 1]).toBe(1);
    expect((await readPartRaster(result.file, AbortSignal.timeout(5000))).epsg).toBe(32633);
  });
});

describe('series dates', () => {
  it('reads dates from a search/available answer, optionally for one model', () => {
    const data = {
      ModelImageDates: [
        { Model: 'Stratus2', DatesByGeog: [{ Wkt: 'x', Dates: ['2026-05-03', '2026-05-01'] }, { Wkt: 'y', Dates: ['2026-05-03T00:00:00Z'] }] },
        { Model: 'Nimbus', DatesByGeog: [{ Wkt: 'x', Dates: ['2026-04-30'] }] },
      ],
    };
    expect(datesFromSearchAvailable(data)).toEqual(['2026-04-30', '2026-05-01', '2026-05-03']);
    expect(datesFromSearchAvailable(data, { model: 'Stratus2' })).toEqual(['2026-05-01', '2026-05-03']);
    expect(datesFromSearchAvailable(null)).toEqual([]);
  });
});
