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
    expect(q.list().map((j) => [j.id, j.state])).toEqual([['job-00003', 'queued']]);
    // Running when that version stopped: its POST may have been with the service, so it is not sent again on its own.
    expect(q.get('job-00004')).toMatchObject({ state: 'failed', reason: expect.stringMatching(/^Interrupted: Swath stopped while this paid request was with the service\. It was not sent again/) });
    expect(q.get('job-00001')).toMatchObject({ state: 'done', file: path.join(targetDir, 'a.tif') });
    expect(q.get('job-00002')).toMatchObject({ state: 'failed', reason: 'nope' });
    await q.close();

    // A second start imports nothing again (the backup stays a backup).
    const again = await DownloadQueue.open({ stateDir, source, concurrency: 1, autoStart: false });
    expect(again.page({ limit: 10 }).total).toBe(4);
    await again.close();
  });

  it('sets a corrupt downloads.json aside with a notice and starts', async () => {
    writeFileSync(path.join(stateDir, QUEUE_FILE), '{"version": 1, "jobs": [');
    const warnings: string[] = [];
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, autoStart: false, onWarning: (m) => warnings.push(m) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/moved to .*downloads\.json\.corrupt-\d+/);
    expect(readdirSync(stateDir).filter((f) => f.startsWith(`${QUEUE_FILE}.corrupt-`))).toHaveLength(1);
    expect(q.page({ limit: 10 })).toEqual({ total: 0, jobs: [], next: null });
    await q.close();
  });

  it('pages every job exactly once, the active ones first, then the history newest first', async () => {
    const finished = Array.from({ length: 1203 }, (_, i) => oldJob(i + 10, (['done', 'failed', 'cancelled'] as const)[i % 3]!));
    writeOldQueue([oldJob(1, 'queued'), ...finished, oldJob(5, 'queued')]);
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, autoStart: false });
    const seen: DownloadJob[] = [];
    let total = -1;
    let after: string | undefined;
    do {
      const page = q.page({ after, limit: 500 });
      total = page.total;
      seen.push(...page.jobs);
      after = page.next ?? undefined;
    } while (after !== undefined);
    expect(total).toBe(1205);
    expect(seen).toHaveLength(1205);
    expect(new Set(seen.map((j) => j.id)).size).toBe(1205);
    expect(seen.slice(0, 2).map((j) => j.id)).toEqual(['job-00001', 'job-00005']);
    const history = seen.slice(2).map((j) => j.updatedAt);
    expect(history).toEqual([...history].sort().reverse());
    // A state filter pages that state only, with its own total.
    const done = q.page({ limit: 500, state: 'done' });
    expect(done.total).toBe(401);
    expect(done.jobs.every((j) => j.state === 'done')).toBe(true);
    expect(q.page({ limit: 500, state: 'queued' }).jobs.map((j) => j.id)).toEqual(['job-00001', 'job-00005']);
    await q.close();
  });

  it('pages by position: jobs that end, go away or arrive between pages never make it skip or repeat one', async () => {
    // Six queued jobs, five in the history; pages of two.
    writeOldQueue([...[1, 2, 3, 4, 5, 6].map((i) => oldJob(i, 'queued')), ...[11, 12, 13, 14, 15].map((i) => oldJob(i, 'done'))]);
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, autoStart: false });
    const first = q.page({ limit: 2 });
    expect(first.jobs.map((j) => j.id)).toEqual(['job-00001', 'job-00002']);
    // Between pages: a job already read ends (it moves to the history's top), a history job not read yet is removed, a new job arrives.
    await q.cancel('job-00001');
    await q.remove('job-00012');
    const added = await q.add({ ...tile, targetDir });
    const seen = [...first.jobs];
    let after = first.next ?? undefined;
    while (after !== undefined) {
      const page = q.page({ after, limit: 2 });
      seen.push(...page.jobs);
      after = page.next ?? undefined;
    }
    const ids = seen.map((j) => j.id);
    // Every job that still exists was seen; the one that ended is seen again in its new place; nothing else twice.
    expect(new Set(ids)).toEqual(new Set(['job-00001', 'job-00002', 'job-00003', 'job-00004', 'job-00005', 'job-00006', added.id, 'job-00011', 'job-00013', 'job-00014', 'job-00015']));
    expect(ids.filter((id) => id !== 'job-00001')).toHaveLength(new Set(ids).size - 1);
    expect(ids.slice(2, 7)).toEqual(['job-00003', 'job-00004', 'job-00005', 'job-00006', added.id]);
    await q.close();
  });

  it('refuses a position it did not give, naming the field', async () => {
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, autoStart: false });
    for (const after of ['nonsense', Buffer.from('{"in":"history","at":1,"id":"x"}').toString('base64url'), Buffer.from(JSON.stringify({ in: 'active', at: 'x'.repeat(1000), id: 'y' })).toString('base64url')]) {
      expect(() => q.page({ after, limit: 10 })).toThrow(/^after: not a position this list gave/);
    }
    await q.close();
  });

  it('counts every state in all pages and clears the finished ones of the states asked in one go', async () => {
    writeOldQueue([oldJob(1, 'queued'), ...Array.from({ length: 700 }, (_, i) => oldJob(i + 10, (['done', 'failed', 'cancelled', 'done'] as const)[i % 4]!))]);
    const q = await DownloadQueue.open({ stateDir, source, concurrency: 1, autoStart: false });
    expect(q.counts()).toEqual({ queued: 1, running: 0, done: 350, failed: 175, cancelled: 175 });
    // A state that is not finished is never cleared.
    expect(q.clearFinished(['done', 'cancelled', 'queued' as never])).toBe(525);
    expect(q.counts()).toEqual({ queued: 1, running: 0, done: 0, failed: 175, cancelled: 0 });
    const left = q.page({ limit: 500 });
    expect(left.total).toBe(176);
    expect(left.jobs.filter((j) => j.state !== 'failed').map((j) => j.id)).toEqual(['job-00001']);
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
    expect(reopened.page({ limit: 10 }).jobs).toMatchObject([{ id: job.id, state: 'done', file: expect.stringContaining(targetDir) }]);
    await reopened.close();
  });
});
