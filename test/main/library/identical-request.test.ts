import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Watch } from '../../../main/watches';
import { watchRequest } from '../../../main/watches/run-machine';
import { settled, startTestApp, type TestApp } from '../watches/app-helpers';

// Never paying twice for what is in the analyst's own library: the app core against its embedded
// simulator over loopback HTTP; the simulator's ledger says what was charged.

const SMALL_HISTORICAL = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
/** The same area drawn from another corner, the other way round. */
const SAME_AREA_REDRAWN = 'POLYGON((13.43 52.52, 13.43 52.50, 13.40 52.50, 13.40 52.52, 13.43 52.52))';
const SETTINGS = { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16' as const, Resolution: 80, PixelSelectionMode: 'intersect' as const };

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** The historical demo order's last two image dates over the small area. */
async function lastTwoDates(app: TestApp): Promise<string[]> {
  const o = app.demoOrder(false);
  const r = await app.call('imagery:search', { request: { Wkt: SMALL_HISTORICAL, From: o.from, Until: null, Model: o.model, SatelliteConstellations: o.constellations } });
  const dates = [...new Set<string>(r.data.ModelImageDates.flatMap((g: any) => g.DatesByGeog.flatMap((d: any) => d.Dates)))].map((d) => d.slice(0, 10)).sort();
  expect(dates.length).toBeGreaterThanOrEqual(2);
  return dates.slice(-2);
}

/** The composite an analyst downloads by hand: the watch's settings, fields in another order, the area redrawn, as the Imagery panel sends it. */
function manualRequest(app: TestApp, date: string): Record<string, unknown> {
  const o = app.demoOrder(false);
  return {
    Bandnames: SETTINGS.Bandnames, DataType: 'INT16', Resolution: 80, EpsgProjection: 32633, PixelSelectionMode: 'intersect', UtmDataSelectionMode: 'combined_utm',
    FileType: 'tif', OldPixelSelectionMode: false, AllowPartialImage: false, AutomaticOrderCreation: false,
    SatelliteConstellations: [...o.constellations].reverse(), Model: o.model, Date: `${date}T00:00:00Z`, Wkt: SAME_AREA_REDRAWN,
  };
}

const downloadCharges = (app: TestApp) => app.account().ledger.filter((e) => e.kind === 'Download').length;

/** The job once it has ended. */
async function ended(app: TestApp, id: string): Promise<any> {
  let job: any;
  await expect.poll(async () => {
    job = (await app.call('downloads:list', { limit: 500 })).jobs.find((j: any) => j.id === id);
    return job?.state;
  }, { timeout: 90_000, interval: 50 }).toMatch(/^(done|failed|cancelled)$/);
  expect(job.state).toBe('done');
  return job;
}

async function buy(app: TestApp, request: Record<string, unknown>, buyAnyway = false): Promise<any> {
  const job = await app.call('downloads:enqueue', { kind: 'composite', request, ...(buyAnyway ? { buyAnyway } : {}) });
  return ended(app, job.id);
}

/** A front for the simulator that holds every composite download (not its estimate or check) until released. */
function heldDownloads() {
  const waiting: (() => void)[] = [];
  let open = false;
  const gate = {
    held: () => waiting.length,
    release() {
      open = true;
      for (const go of waiting.splice(0)) go();
    },
    front: async (simUrl: string) => {
      const target = new URL(simUrl);
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const forward = () => {
            const up = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer: IncomingMessage) => {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              answer.pipe(res);
            });
            up.on('error', () => res.destroy());
            up.end(Buffer.concat(chunks));
          };
          if (!open && req.method === 'POST' && req.url?.split('?')[0] === '/api/satelliteimages/process/composite') waiting.push(forward);
          else forward();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
    },
  };
  return gate;
}

const libraryEntries = async (app: TestApp) => (await app.call('library:query', { limit: 500 })).entries as { id: string; path: string; date: string | null }[];

describe('the analyst\'s own library before any purchase', () => {
  it('a watch over dates already in the library buys none of them: it links the library\'s files at 0 EUR', async () => {
    t = await startTestApp();
    // Every download of the historical order costs credit (its included downloads are used up).
    t.demoOrder(false).downloadsUsed = 1000;
    const dates = await lastTwoDates(t);
    for (const d of dates) await buy(t, manualRequest(t, d));
    const charged = downloadCharges(t);
    expect(charged).toBe(2);
    const owned = await libraryEntries(t);
    expect(owned).toHaveLength(2);

    const o = t.demoOrder(false);
    const w0 = await t.call<Watch>('watches:create', {
      name: 'Same area', source: { kind: 'order', orderId: o.guid, recurring: false }, area: { Wkt: SMALL_HISTORICAL },
      model: o.model, constellations: o.constellations, from: dates[0], to: dates[1], settings: SETTINGS, capEur: null, everyHours: 6,
    });
    const w = await settled(t, w0.id);
    expect(w.state).toBe('active');
    // No Download charge: the simulator's ledger is where it would show.
    expect(downloadCharges(t)).toBe(charged);
    expect(w.dates.map((d) => [d.date, d.state, d.costEur, d.jobId])).toEqual(dates.map((d) => [d, 'downloaded', 0, null]));
    for (const d of w.dates) {
      const entry = owned.find((e) => e.date === d.date)!;
      expect(d.libraryIds).toEqual([entry.id]);
      expect(d.files).toEqual([entry.path]);
      expect(d.note).toContain('Already in your library');
    }
    expect(w.lastResult).toContain('Already in your library (0 EUR)');
    // Nothing was saved again (no "… (1).tif"), and the watch's own folder holds nothing.
    expect(await libraryEntries(t)).toHaveLength(2);
    const watchDir = path.join(t.dir, 'Downloads', 'watches');
    expect(existsSync(watchDir) ? readdirSync(watchDir, { recursive: true }).filter((f) => String(f).endsWith('.tif')) : []).toEqual([]);

    // Deleting the watch with its files keeps the analyst's own: the watch did not download them.
    expect(await t.call('watches:delete', { id: w.id, deleteFiles: true })).toEqual({ deleted: true, filesDeleted: 0 });
    for (const e of owned) expect(existsSync(e.path)).toBe(true);
  });

  it('refuses to buy an identical request again unless the analyst buys it anyway; series and STAC list its date once', async () => {
    t = await startTestApp();
    t.demoOrder(false).downloadsUsed = 1000;
    const dates = await lastTwoDates(t);
    const first = await buy(t, manualRequest(t, dates[0]!));
    await buy(t, manualRequest(t, dates[1]!));
    expect(downloadCharges(t)).toBe(2);

    // The watch's spelling of the same request: the estimate names the file, the download is refused naming it.
    const again = watchRequest({ area: { Wkt: SMALL_HISTORICAL }, model: t.demoOrder(false).model, constellations: t.demoOrder(false).constellations, settings: SETTINGS }, dates[0]!);
    const estimate = await t.call('imagery:estimate', { request: again });
    expect(estimate.inLibrary).toMatchObject({ id: first.libraryId, path: first.file, date: dates[0] });
    const refusal = await t.call('downloads:enqueue', { kind: 'composite', request: again }).then(() => null, (e: unknown) => e);
    expect(refusal).toMatchObject({ kind: 'validation' });
    expect((refusal as Error).message).toContain(first.file);
    expect((refusal as Error).message).toContain('Buy anyway');
    expect((refusal as { fields?: Record<string, string[]> }).fields?.buyAnyway?.[0]).toContain(first.file);
    expect(downloadCharges(t)).toBe(2);

    // A series over both dates has nothing to buy: the plan names both files and estimates no request.
    const seriesRequest = { ...again };
    delete (seriesRequest as { Date?: unknown }).Date;
    const plan = await t.call('downloads:plan', { request: { ...seriesRequest, Date: dates[0] }, series: { from: dates[0], until: dates[1] } });
    expect(plan.dates).toEqual(dates);
    expect(plan.inLibrary.map((c: { date: string }) => c.date)).toEqual(dates);
    expect(plan.estimate.requests).toBe(0);
    await expect(t.call('downloads:enqueue-series', { request: seriesRequest, from: dates[0], until: dates[1] })).rejects.toMatchObject({ kind: 'validation' });
    expect(downloadCharges(t)).toBe(2);

    // The analyst's explicit choice buys it again (as first spelled, so it joins the same library series).
    const dup = await buy(t, manualRequest(t, dates[0]!), true);
    expect(downloadCharges(t)).toBe(3);
    expect(dup.file).not.toBe(first.file);
    const all = await libraryEntries(t);
    expect(all).toHaveLength(3);

    // The time series lists each date once (the first copy read, the second named as identical).
    const series = await t.call('analysis:series', { expression: 'ndvi', target: { kind: 'area', aoi: { wkt: SMALL_HISTORICAL } } });
    expect(series.points.map((p: { date: string }) => p.date)).toEqual(dates);
    expect(series.points.find((p: { date: string }) => p.date === dates[0]).id).toBe(first.libraryId);
    expect(series.skipped).toEqual([expect.objectContaining({ id: dup.libraryId, reason: expect.stringContaining('identical') })]);

    // The library's series row lists each date once.
    const page = await t.call('library:query', { limit: 50, series: true });
    expect(page.series).toHaveLength(1);
    expect(page.series[0].entries.map((e: { date: string }) => e.date)).toEqual(dates);

    // The STAC export holds one item per date.
    const stac = await t.call('export:stac', {});
    expect(stac.items).toBe(2);
    expect(stac.skipped).toEqual([expect.objectContaining({ id: dup.libraryId })]);
    const catalog = JSON.parse(readFileSync(stac.catalogFile, 'utf8'));
    const items = catalog.links.filter((l: { rel: string }) => l.rel === 'item').map((l: { href: string }) => JSON.parse(readFileSync(path.join(stac.dir, l.href), 'utf8')));
    expect(items.map((i: { properties: { datetime: string } }) => i.properties.datetime.slice(0, 10)).sort()).toEqual(dates);
  });

  it('refuses an identical request while a download of it is still on its way, unless bought anyway; a watch waits for it', async () => {
    const gate = heldDownloads();
    t = await startTestApp({ front: gate.front });
    t.demoOrder(false).downloadsUsed = 1000;
    const [date] = await lastTwoDates(t);
    const first = await t.call('downloads:enqueue', { kind: 'composite', request: manualRequest(t, date!) });
    // The first download has reached the service and waits there for its bytes.
    await expect.poll(() => gate.held(), { timeout: 30_000, interval: 20 }).toBe(1);
    const refusal = await t.call('downloads:enqueue', { kind: 'composite', request: watchRequest({ area: { Wkt: SMALL_HISTORICAL }, model: t.demoOrder(false).model, constellations: t.demoOrder(false).constellations, settings: SETTINGS }, date!) }).then(() => null, (e: unknown) => e);
    expect(refusal).toMatchObject({ kind: 'validation', fields: { buyAnyway: [expect.stringContaining(first.id)] } });
    expect(gate.held()).toBe(1);
    // A watch of that date leaves it to the next run: the queue is buying it now.
    const o = t.demoOrder(false);
    const w0 = await t.call<Watch>('watches:create', {
      name: 'Same date', source: { kind: 'order', orderId: o.guid, recurring: false }, area: { Wkt: SMALL_HISTORICAL },
      model: o.model, constellations: o.constellations, from: date, to: date, settings: SETTINGS, capEur: null, everyHours: 6,
    });
    const w1 = await settled(t, w0.id);
    expect(w1.dates).toEqual([]);
    expect(w1.lastResult).toContain(`Being downloaded now by an identical download (${date})`);
    expect(gate.held()).toBe(1);
    // The analyst's explicit choice buys it twice.
    const second = await t.call('downloads:enqueue', { kind: 'composite', request: manualRequest(t, date!), buyAnyway: true });
    await expect.poll(() => gate.held(), { timeout: 30_000, interval: 20 }).toBe(2);
    gate.release();
    const files = [(await ended(t, first.id)).file, (await ended(t, second.id)).file];
    expect(downloadCharges(t)).toBe(2);
    // The watch's next run finds the file in the library (the one recorded first) and links it at 0 EUR.
    await t.call('watches:run', { id: w0.id });
    const w2 = await settled(t, w0.id, w1.lastRunAt);
    expect(w2.dates.map((d) => [d.date, d.state, d.costEur])).toEqual([[date, 'downloaded', 0]]);
    expect(files).toContain(w2.dates[0]!.files[0]);
    expect(downloadCharges(t)).toBe(2);
  });
});
