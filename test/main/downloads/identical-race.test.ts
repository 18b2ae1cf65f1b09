import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { watchRequest, type Watch } from '../../../main/watches';
import { billedDownloads, startFront } from './helpers';
import { settled, startTestApp, type TestApp } from '../watches/app-helpers';

// Never twice for one date from this machine's own queue: a download identical to one on its way
// (queued, running, or between its check and the queue) is not bought again, against the app's
// embedded simulator over loopback HTTP behind a front that can hold chosen POSTs.

const SMALL = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const COMPOSITE = '/api/satelliteimages/process/composite';
const ESTIMATE = '/api/satelliteimages/process/composite/estimate';

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** A front that forwards everything, except that POSTs to a path in `hold` wait until {@link release} (forwarded then) or {@link drop} (cut off). */
function holdingFront() {
  const held: { forward(): void; res: ServerResponse; body: string }[] = [];
  const front = {
    hold: new Set<string>(),
    get held() {
      return held.length;
    },
    release() {
      front.hold.clear();
      for (const h of held.splice(0)) h.forward();
    },
    /** Forwards the held POSTs whose body contains `text` (the rest stay held). */
    releaseWith(text: string) {
      for (const h of held.filter((x) => x.body.includes(text))) {
        held.splice(held.indexOf(h), 1);
        h.forward();
      }
    },
    drop() {
      front.hold.clear();
      for (const h of held.splice(0)) h.res.destroy();
    },
    start: (simUrl: string) => startFront(simUrl, (req, body, res, forward) => {
      if (req.method === 'POST' && front.hold.has(req.url ?? '')) held.push({ forward, res, body: body.toString() });
      else forward();
    }),
  };
  return front;
}

function composite(t: TestApp, date: string): Record<string, unknown> {
  const o = t.demoOrder(false);
  return {
    ...watchRequest({
      area: { Wkt: SMALL }, model: o.model, constellations: o.constellations,
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16', Resolution: 80, PixelSelectionMode: 'intersect' },
    } as never, date),
  };
}

async function imageDates(t: TestApp): Promise<string[]> {
  const o = t.demoOrder(false);
  const r = await t.call('imagery:search', { request: { Wkt: SMALL, From: o.from, Until: o.to, Model: o.model, SatelliteConstellations: o.constellations } });
  return [...new Set<string>(r.data.ModelImageDates.flatMap((g: any) => g.DatesByGeog.flatMap((d: any) => d.Dates)))].map((d) => d.slice(0, 10)).sort();
}

async function settledJobs(t: TestApp, ids: string[]): Promise<Map<string, any>> {
  let all = new Map<string, any>();
  await expect.poll(async () => {
    all = new Map((await t.call('downloads:list')).jobs.map((j: any) => [j.id, j]));
    return ids.every((id) => ['done', 'failed', 'cancelled'].includes(all.get(id)?.state));
  }, { timeout: 90_000, interval: 100 }).toBe(true);
  return all;
}

describe('an identical download on its way is not bought again', () => {
  it('two identical downloads asked at once: one is bought, the other refused naming it (both passed the first look before either was queued)', async () => {
    const front = holdingFront();
    t = await startTestApp({ front: front.start });
    t.demoOrder(false).downloadsUsed = 1000;
    const date = (await imageDates(t)).at(-1)!;
    await t.call('spend:get', {});
    const billed = billedDownloads(t.sim);
    // One date, written two ways (a day and its midnight): one identical request, two estimates.
    const a = composite(t, date);
    const b = { ...composite(t, date), Date: `${date}T00:00:00Z` };
    front.hold.add(ESTIMATE);
    const first = t.call('downloads:enqueue', { kind: 'composite', request: a }).then((j) => ({ ok: j }), (e) => ({ error: e }));
    const second = t.call('downloads:enqueue', { kind: 'composite', request: b }).then((j) => ({ ok: j }), (e) => ({ error: e }));
    // Both are past their look at the library and the queue, estimating.
    await expect.poll(() => front.held, { timeout: 30_000, interval: 20 }).toBe(2);
    front.release();
    const answers = await Promise.all([first, second]);
    const queued = answers.filter((x): x is { ok: any } => 'ok' in x).map((x) => x.ok);
    const refused = answers.filter((x): x is { error: any } => 'error' in x).map((x) => x.error);
    expect(queued).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ kind: 'validation', message: expect.stringContaining(`download ${queued[0].id}`) });
    expect(refused[0].fields?.buyAnyway).toBeDefined();
    const jobs = await settledJobs(t, [queued[0].id]);
    expect(jobs.get(queued[0].id).state).toBe('done');
    expect(billedDownloads(t.sim) - billed).toBe(1);
  }, 120_000);

  it('a time series leaves out a date that a queued or running download of the identical request is buying', async () => {
    const front = holdingFront();
    t = await startTestApp({ front: front.start });
    t.demoOrder(false).downloadsUsed = 1000;
    const dates = await imageDates(t);
    expect(dates.length).toBeGreaterThan(2);
    const [before, last] = dates.slice(-2) as [string, string];
    // The last date's download is with the service (held by the front, never forwarded: never charged).
    front.hold.add(COMPOSITE);
    const single = await t.call('downloads:enqueue', { kind: 'composite', request: composite(t, last) });
    await expect.poll(() => front.held, { timeout: 30_000, interval: 20 }).toBe(1);
    const { Date: _date, ...series } = composite(t, last);
    const plan = await t.call('downloads:plan', { request: { ...series, Date: before }, series: { from: before, until: last } });
    expect(plan.dates).toEqual([before, last]);
    expect(plan.estimate.requests).toBe(1);
    const job = await t.call('downloads:enqueue-series', { request: series, from: before, until: last });
    expect(job.batch.dates).toEqual([before]);
    // Only that date left to buy, and it is on its way: nothing to buy.
    await expect(t.call('downloads:enqueue-series', { request: series, from: last, until: last })).rejects.toMatchObject({
      kind: 'validation', message: expect.stringContaining('being downloaded now'),
    });
    front.drop();
    await settledJobs(t, [single.id, job.id]);
  }, 120_000);

  it('a watch leaves a date to its next run when the analyst queued an identical download while the watch was estimating it', async () => {
    const front = holdingFront();
    t = await startTestApp({ front: front.start });
    t.demoOrder(false).downloadsUsed = 1000;
    const o = t.demoOrder(false);
    const last = (await imageDates(t)).at(-1)!;
    await t.call('spend:get', {});
    const billed = billedDownloads(t.sim);
    front.hold.add(ESTIMATE);
    const w0 = await t.call<Watch>('watches:create', {
      name: 'Race', source: { kind: 'aoi' as const, orderId: null, recurring: null }, area: { Wkt: SMALL },
      model: o.model, constellations: o.constellations, from: last, to: last,
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16' as const, Resolution: 80, PixelSelectionMode: 'intersect' as const },
      capEur: null, everyHours: 6,
    });
    // The watch looked at the library and the queue and is estimating the date.
    await expect.poll(() => front.held, { timeout: 30_000, interval: 20 }).toBe(1);
    // The analyst downloads the same date (written as its midnight: an estimate of its own) and it is queued first.
    const mine = t.call('downloads:enqueue', { kind: 'composite', request: { ...composite(t, last), Date: `${last}T00:00:00Z` } });
    await expect.poll(() => front.held, { timeout: 30_000, interval: 20 }).toBe(2);
    front.releaseWith('T00:00:00Z');
    const job = await mine;
    front.release();
    const w1 = await settled(t, w0.id);
    expect(w1.dates).toEqual([]);
    expect(w1.lastResult).toContain(`Being downloaded now by an identical download (${last})`);
    const jobs = await settledJobs(t, [job.id]);
    expect(jobs.get(job.id).state).toBe('done');
    expect((await t.call('downloads:list')).jobs).toHaveLength(1);
    expect(billedDownloads(t.sim) - billed).toBe(1);
  }, 120_000);
});
