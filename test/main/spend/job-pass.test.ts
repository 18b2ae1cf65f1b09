import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../main/shared/database';
import { watchRequest, type Watch } from '../../../main/watches';
import { billedDownloads, startFront } from '../downloads/helpers';
import { startTestSim } from '../../simulator/helpers';
import { settled, startTestApp, type TestApp } from '../watches/app-helpers';

// A download job's spend pass, against the app's embedded simulator over loopback HTTP: stored with
// the job, decided again for a job brought back at start, one ledger line per attempt the service
// charged, and never sent under another profile than the one it was cleared under.

const SMALL = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const COMPOSITE = '/api/satelliteimages/process/composite';
const BANDS = ['B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'B8', 'B8A', 'B11', 'B12'];

/**
 * The bodies of `extra` more composites than the queue runs at once (as many as the account allows
 * connections, the client's own limit too), each estimated already and the month's billing read:
 * queueing them asks the service nothing more, so the ones the front holds cannot hold it up.
 */
async function bodies(t: TestApp, date: string, extra: number): Promise<{ n: number; requests: Record<string, unknown>[] }> {
  const n = t.account().profile.maxConcurrentConnections;
  expect(n + extra).toBeLessThanOrEqual(BANDS.length);
  const requests = BANDS.slice(0, n + extra).map((b) => composite(t, date, b));
  for (const request of requests) await t.call('imagery:estimate', { request });
  await t.call('spend:get', {});
  return { n, requests };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An app core closed after the test (once, whether or not the test closed it). */
async function app(opts: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const t = await startTestApp(opts);
  let open = true;
  const close = async (): Promise<void> => {
    if (!open) return;
    open = false;
    await t.close();
  };
  cleanups.push(close);
  return { ...t, close };
}

/** A composite of the demo order's area and model on `date`, with these bands. */
function composite(t: TestApp, date: string, bands: string): Record<string, unknown> {
  const o = t.demoOrder(false);
  return {
    ...watchRequest({
      area: { Wkt: SMALL }, model: o.model, constellations: o.constellations,
      settings: { EpsgProjection: 32633, Bandnames: bands, DataType: 'INT16', Resolution: 80, PixelSelectionMode: 'intersect' },
    } as never, date),
  };
}

/** The newest image date of the historical demo order over the small area. */
async function lastImageDate(t: TestApp): Promise<string> {
  const o = t.demoOrder(false);
  const r = await t.call('imagery:search', { request: { Wkt: SMALL, From: o.from, Until: o.to, Model: o.model, SatelliteConstellations: o.constellations } });
  return [...new Set<string>(r.data.ModelImageDates.flatMap((g: any) => g.DatesByGeog.flatMap((d: any) => d.Dates)))].map((d) => d.slice(0, 10)).sort().at(-1)!;
}

/** Swath's own spend ledger, read from its database. */
function ledger(dir: string): { profile_id: string; cost_eur: number; what: string }[] {
  const db = new DatabaseSync(path.join(dir, DATABASE_FILE), { readOnly: true });
  try {
    return db.prepare('SELECT profile_id, cost_eur, what FROM spend_ledger ORDER BY at').all() as never;
  } finally {
    db.close();
  }
}

async function jobs(t: TestApp): Promise<Map<string, any>> {
  return new Map((await t.call('downloads:list')).jobs.map((j: any) => [j.id, j]));
}

async function settledJobs(t: TestApp, ids: string[]): Promise<Map<string, any>> {
  let all = new Map<string, any>();
  await expect.poll(async () => {
    all = await jobs(t);
    return ids.every((id) => ['done', 'failed', 'cancelled'].includes(all.get(id)?.state));
  }, { timeout: 90_000, interval: 100 }).toBe(true);
  return all;
}

/**
 * A front that passes everything to the service but holds each composite POST (never forwarded, so
 * never charged) while `holding`; `drop()` cuts the held ones off.
 */
function holdingFront() {
  const held: ServerResponse[] = [];
  const front = {
    holding: false,
    get held() {
      return held.length;
    },
    drop() {
      front.holding = false;
      for (const res of held.splice(0)) res.destroy();
    },
    start: (simUrl: string) => startFront(simUrl, (req, _body, res, forward) => {
      if (front.holding && req.method === 'POST' && req.url === COMPOSITE) held.push(res);
      else forward();
    }),
  };
  return front;
}

describe('a download job\'s spend pass', () => {
  it('at the next start, a job that was with the service fails unsent; queued ones are decided again by the guard: within the budget sent and recorded, past it refused and unsent', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-pass-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const front = holdingFront();
    let t = await app({ dir, front: front.start });
    t.demoOrder(false).downloadsUsed = 1000;
    const date = await lastImageDate(t);
    const cost = (await t.call('imagery:estimate', { request: composite(t, date, 'B4') })).verdict.costEur as number;
    expect(cost).toBeGreaterThan(0);
    const { n, requests } = await bodies(t, date, 2);
    // The month's spend before any of them (once queued, each counts as spent until it ends).
    const spent = (await t.call('spend:get', {})).spentEur as number;
    front.holding = true;
    const ids: string[] = [];
    for (const request of requests) ids.push((await t.call('downloads:enqueue', { kind: 'composite', request })).id);
    // As many as the account allows are with the service (held by the front), two wait in the queue.
    await expect.poll(() => front.held, { timeout: 30_000, interval: 50 }).toBe(n);
    const before = await jobs(t);
    expect(ids.map((id) => before.get(id).state)).toEqual([...Array(n).fill('running'), 'queued', 'queued']);
    // Room for one more download this month, not two (the held ones are never charged).
    await t.call('spend:set-budget', { budgetEur: Math.round((spent + cost * 1.5) * 100) / 100 });
    const billed = billedDownloads(t.sim);
    expect(ledger(dir)).toEqual([]);
    await t.close();

    t = await app({ dir });
    const after = await settledJobs(t, ids);
    for (const id of ids.slice(0, n)) {
      expect(after.get(id)).toMatchObject({ state: 'failed', attempts: 1 });
      expect(after.get(id).reason).toMatch(/^Interrupted: Swath was closing while this paid request was with the service; it is not sent again on its own\. The service may have charged it\./);
    }
    const restored = ids.slice(n).map((id) => after.get(id));
    expect(restored.map((j) => j.state).sort()).toEqual(['done', 'failed']);
    const refused = restored.find((j) => j.state === 'failed');
    expect(refused.attempts).toBe(0);
    expect(refused.reason).toMatch(/^This composite download \(queued in an earlier run\) was not sent: This costs \d+\.\d\d EUR; .* past the budget\. Retry it to decide again/);
    // Only the one the guard cleared again reached the service, and main's ledger has it, for the profile it was cleared under.
    expect(billedDownloads(t.sim) - billed).toBe(1);
    const lines = ledger(dir);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ profile_id: 'demo', what: 'This composite download (queued in an earlier run)' });
    expect(lines[0]!.cost_eur).toBeCloseTo(cost, 2);
  });

  it('a 200 whose body is cut off is charged once: one ledger line, not sent again; the analyst\'s retry goes through the guard', async () => {
    const t = await app({ faults: 'truncate=1' });
    t.demoOrder(false).downloadsUsed = 1000;
    const date = await lastImageDate(t);
    const billed = billedDownloads(t.sim);
    const job = await t.call('downloads:enqueue', { kind: 'composite', request: composite(t, date, 'B4') });
    const final = (await settledJobs(t, [job.id])).get(job.id);
    expect(final).toMatchObject({ state: 'failed', attempts: 1, charged: 1 });
    expect(final.reason).toMatch(/The service answered, so it charged this download; Swath did not send it again/);
    expect(billedDownloads(t.sim) - billed).toBe(1);
    const lines = ledger(t.dir);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ profile_id: 'demo', what: 'This composite download' });
    // Sending it again spends again: the guard decides (past this budget, refused in a host without main's dialog).
    await t.call('spend:set-budget', { budgetEur: 0.01 });
    await expect(t.call('downloads:retry', { id: job.id })).rejects.toMatchObject({ kind: 'validation', message: expect.stringMatching(/^This retried download was not done: .*monthly budget is 0\.01 EUR/) });
    expect(billedDownloads(t.sim) - billed).toBe(1);
    expect(ledger(t.dir)).toHaveLength(1);
  });

  it('a watch whose download the service charged but cut off stops for the analyst instead of buying the date again', async () => {
    const t = await app({ faults: 'truncate=1' });
    t.demoOrder(false).downloadsUsed = 1000;
    const o = t.demoOrder(false);
    const billed = billedDownloads(t.sim);
    const w0 = await t.call<Watch>('watches:create', {
      name: 'Cut off', source: { kind: 'aoi', orderId: null, recurring: null }, area: { Wkt: SMALL },
      model: o.model, constellations: o.constellations, from: o.from, to: o.to,
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16', Resolution: 80, PixelSelectionMode: 'intersect' },
      capEur: null, everyHours: 6,
    });
    const w1 = await settled(t, w0.id);
    expect(w1.state).toBe('attention');
    expect(w1.notice).toMatch(/^The download of \d{4}-\d\d-\d\d failed after the service answered or may have acted on it, so it may be charged already; the watch does not buy it again on its own\. Resume the watch to buy it again\./);
    expect(billedDownloads(t.sim) - billed).toBe(1);
    expect(ledger(t.dir)).toHaveLength(1);
  });

  it('a queued job is sent only under the profile it was cleared under: after a switch it is refused with the reason, and nothing is sent', async () => {
    const other = await startTestSim();
    cleanups.push(() => other.close());
    const front = holdingFront();
    const t = await app({ front: front.start });
    t.demoOrder(false).downloadsUsed = 1000;
    const date = await lastImageDate(t);
    const { n, requests } = await bodies(t, date, 1);
    front.holding = true;
    const ids: string[] = [];
    for (const request of requests) ids.push((await t.call('downloads:enqueue', { kind: 'composite', request })).id);
    await expect.poll(() => front.held, { timeout: 30_000, interval: 50 }).toBe(n);
    expect((await jobs(t)).get(ids[n]!).state).toBe('queued');
    const billed = billedDownloads(t.sim);
    // Another account's profile becomes the active one while the third job waits.
    const created = await t.call('profiles:create', { name: 'Other account', baseUrl: other.url, key: 'demo-key' });
    await t.call('profiles:activate', { id: created.id });
    const otherBilled = billedDownloads(other.sim);
    front.drop();
    const after = await settledJobs(t, ids);
    const waited = after.get(ids[n]!);
    expect(waited).toMatchObject({ state: 'failed', attempts: 0, errorKind: 'validation' });
    expect(waited.reason).toBe(`This composite download was not sent, and nothing was charged: it was cleared under the profile "demo", and "${created.id}" is the active profile now. Switch back to it and Retry, or Retry under this profile (decided again for it).`);
    expect(billedDownloads(other.sim)).toBe(otherBilled);
    expect(billedDownloads(t.sim)).toBe(billed);
    expect(ledger(t.dir)).toEqual([]);
  });
});

describe('a split batch brought back at start after one of its parts was charged', () => {
  it('is not written to the ledger a second time: its first charged part recorded the whole job', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-pass-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // A front that passes the first part through and answers the others 503 with a long Retry-After while `refusing`.
    const front = { refusing: true, first: null as string | null };
    const start = (simUrl: string) => startFront(simUrl, (req, body, res, forward) => {
      if (req.method === 'POST' && req.url === COMPOSITE && front.refusing) {
        front.first ??= body.toString();
        if (body.toString() !== front.first) {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '30' });
          res.end(JSON.stringify({ Succeeded: false, Data: null, Error: { Message: 'Busy.', Code: 503 } }));
          return;
        }
      }
      forward();
    });
    let t = await app({ dir, front: start });
    for (const o of t.account().orders) o.downloadsUsed = 1000;
    // The small area over the account's area per request (a split batch), one part at a time: the first is on disk before the second is refused.
    t.account().profile.maxCompositeAreaKm2 = 3;
    t.account().profile.maxConcurrentConnections = 1;
    await t.call('service:reconnect', {});
    const date = await lastImageDate(t);
    const request = composite(t, date, 'B4');
    const billed = billedDownloads(t.sim);
    const job = await t.call('downloads:enqueue', { kind: 'composite', request });
    expect(job.batch).toMatchObject({ type: 'split' });
    // The first part was charged (the whole job's line), the second refused: the job waits out the Retry-After.
    await expect.poll(async () => (await jobs(t)).get(job.id)?.reason ?? '', { timeout: 60_000, interval: 50 }).toMatch(/^Attempt 1 failed, retrying/);
    expect(billedDownloads(t.sim) - billed).toBe(1);
    const whole = ledger(dir);
    expect(whole).toHaveLength(1);
    await t.close();

    front.refusing = false;
    t = await app({ dir, front: start });
    const after = (await settledJobs(t, [job.id])).get(job.id);
    expect(after.state).toBe('done');
    // The service charged the parts once each; Swath's ledger holds the job once.
    expect(billedDownloads(t.sim) - billed).toBe(job.batch.parts);
    expect(ledger(dir)).toEqual(whole);
  }, 180_000);
});
