import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DownloadQueue, QUEUE_FILE, type BinarySource, type DownloadJob } from '../../../main/downloads/index.js';
import { streamOf, tinyGeoTiff } from './fixtures.js';

let work: string;
let stateDir: string;
let targetDir: string;

beforeEach(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'swath-history-'));
  stateDir = path.join(work, 'userData');
  targetDir = path.join(work, 'Downloads');
  mkdirSync(stateDir, { recursive: true });
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const tif = tinyGeoTiff();
const source: BinarySource = {
  fetchBinary: async () => ({ kind: 'stream', body: streamOf([tif]), fileName: null, contentLength: tif.length }),
};
const tile = { kind: 'tile' as const, request: { TileGuid: 'g', Date: '2026-11-17', Model: 'Stratus2' } };

/** A job as an earlier version wrote it in downloads.json. */
function oldJob(i: number, state: DownloadJob['state'], extra: Partial<DownloadJob> = {}): DownloadJob {
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return { id: `job-${String(i).padStart(5, '0')}`, ...tile, targetDir, state, bytes: 0, total: null, attempts: 1, createdAt: at, updatedAt: at, ...extra };
}

function writeOldQueue(jobs: DownloadJob[]): void {
  writeFileSync(path.join(stateDir, QUEUE_FILE), JSON.stringify({ version: 1, jobs }));
}

describe('download history in swath.db', () => {
  it('imports downloads.json once, keeps it as a backup, and holds only the active jobs in memory', async () => {
    writeOldQueue([oldJob(1, 'done', { file: path.join(targetDir, 'a.tif') }), oldJob(2, 'failed', { reason: 'nope' }), oldJob(3, 'queued'), oldJob(4, 'running', { bytes: 10 })]);
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, autoStart: false });
    expect(existsSync(path.join(stateDir, QUEUE_FILE))).toBe(false);
    expect(readdirSync(stateDir).filter((f) => f.startsWith(`${QUEUE_FILE}.imported-`))).toHaveLength(1);
    expect(q.list().map((j) => [j.id, j.state])).toEqual([['job-00003', 'queued'], ['job-00004', 'queued']]);
    expect(q.get('job-00001')).toMatchObject({ state: 'done', file: path.join(targetDir, 'a.tif') });
    expect(q.get('job-00002')).toMatchObject({ state: 'failed', reason: 'nope' });
    await q.close();

    // A second start imports nothing again (the backup stays a backup).
    const again = await DownloadQueue.open({ stateDir, source, concurrency: 1, autoStart: false });
    expect(again.page({ offset: 0, limit: 10 }).total).toBe(4);
    await again.close();
  });

  it('sets a corrupt downloads.json aside with a notice and starts', async () => {
    writeFileSync(path.join(stateDir, QUEUE_FILE), '{"version": 1, "jobs": [');
    const warnings: string[] = [];
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, autoStart: false, onWarning: (m) => warnings.push(m) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/moved to .*downloads\.json\.corrupt-\d+/);
    expect(readdirSync(stateDir).filter((f) => f.startsWith(`${QUEUE_FILE}.corrupt-`))).toHaveLength(1);
    expect(q.page({ offset: 0, limit: 10 })).toEqual({ total: 0, jobs: [] });
    await q.close();
  });

  it('pages every job exactly once, the active ones first, then the history newest first', async () => {
    const finished = Array.from({ length: 1203 }, (_, i) => oldJob(i + 10, (['done', 'failed', 'cancelled'] as const)[i % 3]!));
    writeOldQueue([oldJob(1, 'queued'), ...finished, oldJob(5, 'queued')]);
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, autoStart: false });
    const seen: DownloadJob[] = [];
    let total = -1;
    for (let offset = 0; ; offset += 500) {
      const page = q.page({ offset, limit: 500 });
      total = page.total;
      seen.push(...page.jobs);
      if (page.jobs.length < 500) break;
    }
    expect(total).toBe(1205);
    expect(seen).toHaveLength(1205);
    expect(new Set(seen.map((j) => j.id)).size).toBe(1205);
    expect(seen.slice(0, 2).map((j) => j.id)).toEqual(['job-00001', 'job-00005']);
    const history = seen.slice(2).map((j) => j.updatedAt);
    expect(history).toEqual([...history].sort().reverse());
    // A state filter pages that state only, with its own total.
    const done = q.page({ offset: 0, limit: 500, state: 'done' });
    expect(done.total).toBe(401);
    expect(done.jobs.every((j) => j.state === 'done')).toBe(true);
    expect(q.page({ offset: 0, limit: 500, state: 'queued' }).jobs.map((j) => j.id)).toEqual(['job-00001', 'job-00005']);
    await q.close();
  });

  it('lets a finished job leave memory and keeps it in the history across a restart', async () => {
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1 });
    const job = await q.add({ ...tile, targetDir });
    expect(q.list().map((j) => j.id)).toEqual([job.id]);
    await q.onIdle();
    expect(q.list()).toEqual([]);
    expect(q.get(job.id)).toMatchObject({ state: 'done' });
    await q.close();

    const reopened = await DownloadQueue.open({ stateDir, source, concurrency: 1 });
    expect(reopened.list()).toEqual([]);
    expect(reopened.page({ offset: 0, limit: 10 }).jobs).toMatchObject([{ id: job.id, state: 'done', file: expect.stringContaining(targetDir) }]);
    await reopened.close();
  });
});
