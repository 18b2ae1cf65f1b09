import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DownloadError, DownloadQueue, KEEP_CONTENT_BYTES, QUEUE_FILE, type BinarySource, type DownloadJob, type ProgressEvent,
} from '../../../main/downloads/index.js';
import { createBatchRunner } from '../../../main/downloads/batch-job.js';
import { planComposite } from '../../../main/batch-plan/index.js';
import { LibraryCatalog } from '../../../main/library/index.js';
import type { DownloadedRaster, DownloadSink } from '../../../main/library/download-sink.js';
import { SMALL_AOI, demoDate, startTestSim, type TestSim } from '../../simulator/helpers.js';
import { chunked, streamOf, tinyGeoTiff } from './fixtures.js';
import { billedDownloads, fetchSource, partFiles, referenceSha, sha256Of, waitFor } from './helpers.js';

const BANDS = ['B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'B8', 'B8A', 'B11', 'B12'];
/** 55 distinct Bandnames values: every single band, then every pair. */
const BAND_SETS = [...BANDS, ...BANDS.flatMap((a, i) => BANDS.slice(i + 1).map((b) => `${a},${b}`))];

let clean: TestSim;
let date: string;
let work: string;

const composite = (extra: Record<string, unknown> = {}) => ({
  Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 80, EpsgProjection: 32633, Bandnames: 'rgb', ...extra,
});

beforeAll(async () => {
  clean = await startTestSim();
  date = await demoDate(clean);
});
afterAll(async () => {
  await clean.close();
});
beforeEach(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'swath-queue-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const dirs = () => ({ stateDir: path.join(work, 'userData'), targetDir: path.join(work, 'Downloads') });
const fast = { backoff: { baseMs: 10, maxMs: 100 }, progressIntervalMs: 50 };

describe('DownloadQueue against the simulator', () => {
  it('names an NDVI and an RGB composite of one date apart, and keeps every name unique across the library\'s folders', async () => {
    const { stateDir, targetDir } = dirs();
    const library = await LibraryCatalog.open({ dir: stateDir });
    const q = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), library, concurrency: 1, ...fast });
    const day = date.replaceAll('-', '');
    const ndvi = await q.add({ kind: 'composite', request: composite({ Bandnames: 'ndvi' }), targetDir });
    const rgb = await q.add({ kind: 'composite', request: composite(), targetDir: path.join(targetDir, 'other') });
    // The same NDVI again, into another folder: the library already has that name.
    const again = await q.add({ kind: 'composite', request: composite({ Bandnames: 'ndvi' }), targetDir: path.join(targetDir, 'again') });
    await q.onIdle();
    expect(path.basename(q.get(ndvi.id)!.file!)).toBe(`composite_${day}_ndvi_Stratus2_32633_80m.tif`);
    expect(path.basename(q.get(rgb.id)!.file!)).toBe(`composite_${day}_rgb_Stratus2_32633_80m.tif`);
    expect(path.basename(q.get(again.id)!.file!)).toBe(`composite_${day}_ndvi_Stratus2_32633_80m (1).tif`);
    const names = library.list().map((e) => path.basename(e.path).toLowerCase());
    expect(new Set(names).size).toBe(3);
    await q.close();
  });

  it('downloads a composite, records it in the library, and keeps the key out of everything persisted', async () => {
    const { stateDir, targetDir } = dirs();
    const library = await LibraryCatalog.open({ dir: stateDir });
    // What the queue hands the library, on its way there.
    const handed: DownloadedRaster[] = [];
    const sink: DownloadSink = {
      addDownload: (d, signal) => {
        handed.push(d);
        return library.addDownload(d, signal);
      },
      hasFileName: (name) => library.hasFileName(name),
    };
    const q = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), library: sink, concurrency: 2, ...fast });
    const events: DownloadJob[] = [];
    q.on('job', (j) => events.push(j));
    const job = await q.add({ kind: 'composite', request: { ...composite(), 'x-api-key': 'demo-key', ApiKey: 'demo-key' }, targetDir });
    expect(job.request).not.toHaveProperty('x-api-key');
    expect(job.request).not.toHaveProperty('ApiKey');
    await q.onIdle();
    const done = q.get(job.id)!;
    expect(done, `retries: ${events.map((e) => e.reason).filter(Boolean).join('; ')}`).toMatchObject({ state: 'done', attempts: 1, file: path.join(targetDir, `composite_${date.replaceAll('-', '')}_rgb_Stratus2_32633_80m.tif`) });
    const ref = await referenceSha(clean.url, 'composite', composite());
    expect(await sha256Of(done.file!)).toBe(ref.sha256);
    expect(done.bytes).toBe(ref.bytes);
    expect(done.total).toBe(ref.bytes);
    expect(events.map((e) => e.state)).toEqual(expect.arrayContaining(['queued', 'running', 'done']));

    // The library hashes a published download in the background; flush waits for it.
    await library.flush();
    const entry = library.get(done.libraryId!)!;
    expect(entry).toMatchObject({
      path: done.file, size: ref.bytes, sha256: ref.sha256, source: 'download', kind: 'composite', date, model: 'Stratus2',
      constellations: ['Sentinel1', 'Sentinel2'], bands: ['B4', 'B3', 'B2'], epsg: 32633, resolution: 80,
    });
    expect(entry.request).toEqual(composite());
    // The file is small: its bytes went with it, so the library read its header without reading the file again.
    expect(handed).toHaveLength(1);
    expect(ref.bytes).toBeLessThanOrEqual(KEEP_CONTENT_BYTES);
    expect(Buffer.from(handed[0]!.content!).equals(readFileSync(done.file!))).toBe(true);
    const [w, s, e, n] = entry.bounds4326!;
    expect(w).toBeLessThan(13.4);
    expect(e).toBeGreaterThan(13.43);
    expect(s).toBeLessThan(52.5);
    expect(n).toBeGreaterThan(52.52);

    await q.close();
    await library.close();
    expect(existsSync(path.join(stateDir, QUEUE_FILE))).toBe(false);
    for (const f of ['swath.db', 'swath.db-wal'].map((n) => path.join(stateDir, n)).filter((f) => existsSync(f))) {
      expect(readFileSync(f, 'latin1')).not.toContain('demo-key');
    }
    expect(partFiles(targetDir)).toEqual([]);
  });

  it('finishes 50 downloads through 503s with the sha256 of a clean download, each billed once', async () => {
    // The faulty service serves the clean one's generated files (one raster cache): the faults are in the transfers.
    const faulty = await startTestSim({ faults: '5xx=0.3', seed: 7, cacheDir: path.join(clean.dir, 'cache') });
    try {
      const { stateDir, targetDir } = dirs();
      const requests = BAND_SETS.slice(0, 50).map((b) => composite({ Bandnames: b }));
      const refs = new Map<string, string>();
      // The clean downloads four at a time, so the service's file writes of one overlap the others' work. Four, half the
      // account's 8 connections: the service frees a connection when its response closes, which can come just after this
      // side has read the body, so a batch may still count against the limit while the next one starts.
      for (let i = 0; i < requests.length; i += 4) {
        await Promise.all(requests.slice(i, i + 4).map(async (r) => refs.set(r.Bandnames as string, (await referenceSha(clean.url, 'composite', r)).sha256)));
      }
      expect(new Set(refs.values()).size).toBe(50);

      const source = fetchSource(faulty.url);
      const library = await LibraryCatalog.open({ dir: stateDir });
      const q = await DownloadQueue.open({ stateDir, source, library, concurrency: 8, maxAttempts: 12, ...fast });
      let maxRunning = 0;
      const reasons: string[] = [];
      q.on('job', (j) => {
        if (j.reason) reasons.push(j.reason);
        maxRunning = Math.max(maxRunning, q.list().filter((x) => x.state === 'running').length);
      });
      const billedBefore = billedDownloads(faulty.sim);
      const jobs = await Promise.all(requests.map((request) => q.add({ kind: 'composite', request, targetDir })));
      await q.onIdle();

      await library.flush();
      const final = q.page({ limit: 500 }).jobs;
      expect(final).toHaveLength(50);
      expect(final.filter((j) => j.state !== 'done').map((j) => `${j.state}: ${j.reason}`)).toEqual([]);
      for (const j of jobs) {
        const got = q.get(j.id)!;
        expect(await sha256Of(got.file!)).toBe(refs.get(j.request.Bandnames as string));
        expect(library.get(got.libraryId!)!.sha256).toBe(refs.get(j.request.Bandnames as string));
      }
      // 503s (answered before the service did anything) were sent again; every download was billed exactly once.
      expect(reasons.some((r) => /^Attempt \d+ failed, retrying: .*temporarily unavailable/.test(r))).toBe(true);
      expect(source.requests).toBeGreaterThan(60);
      expect(billedDownloads(faulty.sim) - billedBefore).toBe(50);
      expect(final.every((j) => j.charged === 1)).toBe(true);
      expect(maxRunning).toBeLessThanOrEqual(8);
      const names = readdirSync(targetDir);
      expect(names.filter((n) => !n.endsWith('.tif'))).toEqual([]);
      expect(names).toHaveLength(50);
      expect(partFiles(targetDir)).toEqual([]);
      await q.close();
    } finally {
      await faulty.close();
    }
  });

  it('never sends a paid request again after the service may have acted: a body cut off after the 200, a reset', async () => {
    for (const [fault, billed, reason] of [
      ['truncate=1', 1, /ended after \d+ of \d+ bytes|interrupted after \d+ bytes.*The service answered, so it charged this download; Swath did not send it again/],
      ['reset=1', 0, /failed: fetch failed.*Swath did not send it again: the service may have acted on it/],
    ] as const) {
      const faulty = await startTestSim({ faults: fault, cacheDir: path.join(clean.dir, 'cache') });
      try {
        const { stateDir, targetDir } = dirs();
        const source = fetchSource(faulty.url);
        const q = await DownloadQueue.open({ stateDir: path.join(stateDir, fault), source, concurrency: 1, ...fast });
        const before = billedDownloads(faulty.sim);
        const job = await q.add({ kind: 'composite', request: composite({ Bandnames: 'B4' }), targetDir });
        await q.onIdle();
        const failed = q.get(job.id)!;
        expect(failed, fault).toMatchObject({ state: 'failed', attempts: 1 });
        expect(failed.charged ?? 0, fault).toBe(billed);
        expect(failed.reason, fault).toMatch(reason);
        expect(source.requests, fault).toBe(1);
        expect(billedDownloads(faulty.sim) - before, fault).toBe(billed);
        await q.close();
      } finally {
        await faulty.close();
      }
    }
  });

  it('never sends a split batch\'s parts again after the service answered one and its body was cut off', async () => {
    const faulty = await startTestSim({ faults: 'truncate=1', cacheDir: path.join(clean.dir, 'cache') });
    try {
      const { stateDir, targetDir } = dirs();
      const source = fetchSource(faulty.url);
      const request = composite({ Resolution: 10, Bandnames: 'B4' });
      const limits = { maxCompositeAreaKm2: 2, maxTotalBands: 12 };
      const plan = planComposite(request as never, limits);
      expect(plan.parts.length).toBeGreaterThan(1);
      const runBatch = createBatchRunner(source, { parallelism: () => 1 });
      const q = await DownloadQueue.open({ stateDir, source, runBatch, concurrency: 1, ...fast });
      const before = billedDownloads(faulty.sim);
      const job = await q.add({ kind: 'composite', request, targetDir, batch: { type: 'split', limits, parts: plan.parts.length } });
      await q.onIdle();
      const failed = q.get(job.id)!;
      expect(failed).toMatchObject({ state: 'failed', attempts: 1, charged: 1 });
      expect(failed.reason).toMatch(/^Part 1 of \d+ failed: .*Swath did not send it again: the service may have acted on it/);
      expect(source.requests).toBe(1);
      expect(billedDownloads(faulty.sim) - before).toBe(1);
      await q.close();
    } finally {
      await faulty.close();
    }
  });

  it('sends a request again when the connection was refused, which the service never saw', async () => {
    const { stateDir, targetDir } = dirs();
    // A port nobody listens on: the first attempt is refused.
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    const dead = fetchSource(deadUrl);
    const live = fetchSource(clean.url);
    const source: BinarySource = { fetchBinary: (...a) => (dead.requests === 0 ? dead : live).fetchBinary(...a) };
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, ...fast });
    const before = billedDownloads(clean.sim);
    const job = await q.add({ kind: 'composite', request: composite({ Bandnames: 'B5' }), targetDir });
    await q.onIdle();
    expect(q.get(job.id)).toMatchObject({ state: 'done', attempts: 2, charged: 1 });
    expect([dead.requests, live.requests]).toEqual([1, 1]);
    expect(billedDownloads(clean.sim) - before).toBe(1);
    await q.close();
  });

  // The composite is DEFLATE-compressed (a few hundred kB): in 4 KiB pieces 40 ms apart it takes seconds,
  // so the transfer is still running when the test acts on it. In whole chunks it could finish
  // between the first progress event and the cancel.
  const SLOW_LINK = { chunkDelayMs: 40, chunkBytes: 4_096 };

  it('cancels a running transfer: the transfer stops, the .part goes, no final file appears; retry then finishes it', async () => {
    const { stateDir, targetDir } = dirs();
    const request = composite({ Resolution: 10, Bandnames: 'all' });
    const q = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url, SLOW_LINK), concurrency: 1, ...fast });
    const progress: ProgressEvent[] = [];
    q.on('progress', (p) => progress.push(p));
    const job = await q.add({ kind: 'composite', request, targetDir });
    await waitFor(() => progress.some((p) => p.bytes > 0), 20_000, 'first bytes');
    expect(partFiles(targetDir)).toHaveLength(1);
    const cancelled = await q.cancel(job.id);
    expect(cancelled).toMatchObject({ state: 'cancelled', reason: 'Cancelled.', errorKind: 'cancelled' });
    expect(readdirSync(targetDir)).toEqual([]);
    await expect(q.cancel(job.id)).rejects.toThrow(`Download ${job.id} is cancelled; only queued or running downloads can be cancelled.`);

    const again = await q.retry(job.id);
    expect(again).toMatchObject({ state: 'queued', attempts: 0 });
    await q.onIdle();
    const done = q.get(job.id)!;
    expect(done.state).toBe('done');
    expect(await sha256Of(done.file!)).toBe((await referenceSha(clean.url, 'composite', request)).sha256);
    await q.close();
  });

  it('cancels a queued job without starting it', async () => {
    const { stateDir, targetDir } = dirs();
    const q = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), concurrency: 1, autoStart: false, ...fast });
    const job = await q.add({ kind: 'composite', request: composite(), targetDir });
    expect((await q.cancel(job.id)).state).toBe('cancelled');
    q.start();
    await q.onIdle();
    expect(q.get(job.id)!.state).toBe('cancelled');
    expect(existsSync(targetDir)).toBe(false);
    await q.close();
  });

  it("tells its reactions (window, spend guard, team) of each change of a job, in that order, before the 'job' event", async () => {
    const { stateDir, targetDir } = dirs();
    const heard: string[] = [];
    const hear = (who: string) => (j: DownloadJob) => void heard.push(`${who}:${j.state}`);
    const q = await DownloadQueue.open({
      stateDir, source: fetchSource(clean.url), concurrency: 1, ...fast,
      onJob: { emit: hear('emit'), spend: hear('spend'), team: hear('team') },
    });
    q.on('job', hear('event'));
    const done = await q.add({ kind: 'composite', request: composite(), targetDir });
    await q.onIdle();
    const failed = await q.add({ kind: 'composite', request: composite({ Bandnames: 'no-such-band' }), targetDir });
    await q.onIdle();
    expect(q.get(done.id)!.state).toBe('done');
    expect(q.get(failed.id)!.state).toBe('failed');
    const ends = heard.filter((h) => /:(done|failed)$/.test(h));
    expect(ends).toEqual(['emit:done', 'spend:done', 'team:done', 'event:done', 'emit:failed', 'spend:failed', 'team:failed', 'event:failed']);
    // Every change, not only the end: each reaction hears the job queued first.
    expect(heard.slice(0, 4)).toEqual(['emit:queued', 'spend:queued', 'team:queued', 'event:queued']);
    await q.close();
  });

  it('reports throttled progress with total, rate and ETA', async () => {
    const { stateDir, targetDir } = dirs();
    const request = composite({ Resolution: 10, Bandnames: 'all' });
    // The composite is DEFLATE-compressed (small): 16 KiB pieces, each held back, make a slow link.
    const q = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url, { chunkDelayMs: 30, chunkBytes: 16_384 }), concurrency: 1, ...fast });
    const progress: { at: number; p: ProgressEvent }[] = [];
    q.on('progress', (p) => progress.push({ at: performance.now(), p }));
    const job = await q.add({ kind: 'composite', request, targetDir });
    await q.onIdle();
    const total = q.get(job.id)!.total!;
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.every(({ p }) => p.jobId === job.id && p.total === total)).toBe(true);
    const bytes = progress.map(({ p }) => p.bytes);
    expect(bytes).toEqual([...bytes].sort((a, b) => a - b));
    expect(bytes.at(-1)).toBe(total);
    expect(progress.at(-1)!.p.etaSec).toBe(0);
    const mid = progress[Math.floor(progress.length / 2)]!.p;
    expect(mid.rateBytesPerSec).toBeGreaterThan(0);
    expect(mid.etaSec).toBeGreaterThan(0);
    // Throttled: apart from the final event, consecutive events are at least the interval apart.
    for (let i = 1; i < progress.length - 1; i++) expect(progress[i]!.at - progress[i - 1]!.at).toBeGreaterThanOrEqual(45);
    await q.close();
  });

  it('does not retry validation errors, and retry() re-runs a failed job', async () => {
    const { stateDir, targetDir } = dirs();
    const real = fetchSource(clean.url);
    let authBroken = true;
    const source: BinarySource = {
      fetchBinary: (kind, body, signal) => authBroken
        ? Promise.reject(new DownloadError('auth', 'The API key is not valid.'))
        : real.fetchBinary(kind, body, signal),
    };
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 2, ...fast });
    const bad = await q.add({ kind: 'composite', request: composite(), targetDir });
    const invalid = await q.add({ kind: 'composite', request: composite({ Bandnames: 'B99' }), targetDir });
    await q.onIdle();
    expect(q.get(bad.id)).toMatchObject({ state: 'failed', attempts: 1, errorKind: 'auth', reason: 'The API key is not valid.' });
    authBroken = false;
    await q.retry(invalid.id);
    await q.retry(bad.id);
    await q.onIdle();
    expect(q.get(bad.id)).toMatchObject({ state: 'done', attempts: 1 });
    expect(q.get(invalid.id)).toMatchObject({ state: 'failed', attempts: 1, errorKind: 'validation' });
    expect(q.get(invalid.id)!.reason).toMatch(/B99/);
    await expect(q.retry(bad.id)).rejects.toThrow(/is done; only failed or cancelled downloads can be retried/);
    await expect(q.retry('nope')).rejects.toMatchObject({ kind: 'not-found' });
    await q.close();
  });

  it('gives up after maxAttempts of 503s and says how often it tried', async () => {
    const { stateDir, targetDir } = dirs();
    let calls = 0;
    const source: BinarySource = {
      fetchBinary: () => {
        calls++;
        return Promise.reject(new DownloadError('transient', 'Service temporarily unavailable.', { status: 503 }));
      },
    };
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, maxAttempts: 3, ...fast });
    const job = await q.add({ kind: 'tile', request: { TileGuid: 'x', Date: date, Model: 'Stratus2' }, targetDir });
    await q.onIdle();
    expect(calls).toBe(3);
    expect(q.get(job.id)).toMatchObject({ state: 'failed', attempts: 3, errorKind: 'transient', reason: 'Service temporarily unavailable. (after 3 attempts)' });
    await q.close();
  });

  it('bounds concurrency and follows setConcurrency at runtime', async () => {
    const { stateDir, targetDir } = dirs();
    let inFlight = 0;
    let peak = 0;
    const tif = tinyGeoTiff();
    const source: BinarySource = {
      async fetchBinary() {
        inFlight++;
        peak = Math.max(peak, inFlight);
        const body = streamOf(chunked(tif, 4), { delayMs: 30 }).pipeThrough(new TransformStream({
          flush: () => { inFlight--; },
        }));
        return { kind: 'stream', body, fileName: 'x.tif', contentLength: tif.length };
      },
    };
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 2, ...fast });
    await Promise.all(Array.from({ length: 6 }, () => q.add({ kind: 'composite', request: composite(), targetDir })));
    await q.onIdle();
    expect(peak).toBe(2);
    peak = 0;
    q.setConcurrency(4);
    expect(q.concurrency).toBe(4);
    await Promise.all(Array.from({ length: 8 }, () => q.add({ kind: 'composite', request: composite(), targetDir })));
    await q.onIdle();
    expect(peak).toBe(4);
    expect(() => q.setConcurrency(0)).toThrow('concurrency must be a positive integer, got 0.');
    expect(readdirSync(targetDir)).toHaveLength(14);
    await q.close();
  });

  it('keeps jobs across close and reopen, resuming queued ones', async () => {
    const { stateDir, targetDir } = dirs();
    const q1 = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), concurrency: 1, autoStart: false, ...fast });
    const a = await q1.add({ kind: 'composite', request: composite({ Bandnames: 'B2' }), targetDir });
    const b = await q1.add({ kind: 'composite', request: composite({ Bandnames: 'B3' }), targetDir });
    await q1.close();

    const q2 = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), concurrency: 1, ...fast });
    expect(q2.list().map((j) => j.id)).toEqual([a.id, b.id]);
    await q2.onIdle();
    expect(q2.list()).toEqual([]);
    const fileA = q2.get(a.id)!.file;
    expect(q2.page({ limit: 10 }).jobs.map((j) => [j.id, j.state]).sort()).toEqual([[a.id, 'done'], [b.id, 'done']].sort());
    await q2.close();

    const q3 = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), concurrency: 1, ...fast });
    expect(q3.get(a.id)).toMatchObject({ state: 'done', file: fileA });
    await q3.remove(a.id);
    expect(q3.get(a.id)).toBeUndefined();
    await q3.close();
    const q4 = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), concurrency: 1, ...fast });
    expect(q4.page({ limit: 10 }).jobs.map((j) => j.id)).toEqual([b.id]);
    await q4.close();
  });

  it('close() fails a transfer the service was answering, which the next open does not send again; a queued one resumes', async () => {
    const { stateDir, targetDir } = dirs();
    const request = composite({ Resolution: 10, Bandnames: 'all' });
    const q1 = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url, SLOW_LINK), concurrency: 1, ...fast });
    const job = await q1.add({ kind: 'composite', request, targetDir });
    const waiting = await q1.add({ kind: 'composite', request: composite({ Bandnames: 'B6' }), targetDir });
    const last = new Map<string, DownloadJob>();
    q1.on('job', (j) => last.set(j.id, j));
    await waitFor(() => q1.get(job.id)!.bytes > 0, 20_000, 'first bytes');
    await q1.close();
    expect(last.get(job.id)).toMatchObject({ state: 'failed', charged: 1 });
    expect(last.get(job.id)!.reason).toMatch(/^Interrupted: Swath was closing while this paid request was with the service; it is not sent again on its own\. The service answered, so it charged this download\./);
    expect(q1.get(waiting.id)).toMatchObject({ state: 'queued', attempts: 0 });
    expect(last.has(waiting.id)).toBe(false);
    expect(readdirSync(targetDir)).toEqual([]);
    const source = fetchSource(clean.url);
    const q2 = await DownloadQueue.open({ stateDir, source, concurrency: 1, ...fast });
    await q2.onIdle();
    expect(q2.get(job.id)!.state).toBe('failed');
    expect(q2.get(waiting.id)!.state).toBe('done');
    expect(source.requests).toBe(1);
    // The analyst's retry sends it again.
    await q2.retry(job.id);
    await q2.onIdle();
    expect(q2.get(job.id)).toMatchObject({ state: 'done', charged: 2 });
    await q2.close();
  });

  it('writes only inside the target folder whatever Content-Disposition says', async () => {
    const { stateDir, targetDir } = dirs();
    const tif = tinyGeoTiff();
    const names = ['../../escape.tif', '/etc/passwd', '..\\..\\win.tif', 'C:\\x\\drive.tif', 'NUL', '..', null];
    let i = 0;
    const source: BinarySource = {
      fetchBinary: async () => ({ kind: 'stream', body: streamOf([tif]), fileName: names[i++] ?? null, contentLength: tif.length }),
    };
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, ...fast });
    for (let k = 0; k < names.length; k++) await q.add({ kind: 'tile', request: { TileGuid: 'g', Date: '2026-11-17', Model: 'Stratus2' }, targetDir });
    await q.onIdle();
    expect(readdirSync(work).sort()).toEqual(['Downloads', 'userData']);
    expect(readdirSync(targetDir).sort()).toEqual(['_NUL.tif', 'drive.tif', 'escape.tif', 'passwd.tif', 'tile_20261117_Stratus2 (1).tif', 'tile_20261117_Stratus2.tif', 'win.tif']);
    for (const j of q.page({ limit: 10 }).jobs) expect(path.dirname(j.file!)).toBe(targetDir);
    await q.close();
  });

  it('ends a job with no file when the service uploaded it to UploadUrl (201)', async () => {
    const { stateDir, targetDir } = dirs();
    let received = 0;
    const sink = http.createServer((req, res) => {
      req.on('data', (c: Buffer) => { received += c.length; });
      req.on('end', () => { res.writeHead(200); res.end(); });
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/upload`;
      const q = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), concurrency: 1, ...fast });
      const job = await q.add({ kind: 'composite', request: composite({ UploadUrl: url }), targetDir });
      await q.onIdle();
      expect(q.get(job.id)).toMatchObject({ state: 'done', reason: expect.stringMatching(/Uploaded by the service/) });
      expect(q.get(job.id)!.file).toBeUndefined();
      expect(received).toBeGreaterThan(0);
      expect(existsSync(targetDir)).toBe(false);
      await q.close();
    } finally {
      await new Promise((r) => sink.close(r));
    }
  });

  it('validates new jobs and names the field', async () => {
    const { stateDir } = dirs();
    const q = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), concurrency: 1, ...fast });
    await expect(q.add({ kind: 'composite', request: composite(), targetDir: 'relative/dir' })).rejects.toThrow('Invalid download: targetDir must be an absolute path.');
    await expect(q.add({ kind: 'video' as never, request: composite(), targetDir: work })).rejects.toMatchObject({ kind: 'validation', message: expect.stringMatching(/^Invalid download: kind/) });
    await q.close();
  });

  it('sets an unreadable queue file aside instead of failing to start', async () => {
    const { stateDir } = dirs();
    const q1 = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), concurrency: 1 });
    await q1.close();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(stateDir, QUEUE_FILE), '{"version":1,"jobs":[{"id":');
    const warnings: string[] = [];
    const q2 = await DownloadQueue.open({ stateDir, source: fetchSource(clean.url), concurrency: 1, onWarning: (w) => warnings.push(w) });
    expect(q2.list()).toEqual([]);
    expect(warnings[0]).toMatch(/downloads\.json is not valid JSON: .* It was moved to .*downloads\.json\.corrupt-\d+/);
    await q2.close();
  });
});
