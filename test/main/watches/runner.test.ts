import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Watch } from '../../../main/watches';
import { settled, startTestApp, type TestApp } from './app-helpers';

// Watches end to end in main: the app core (service session, download queue, library, watch
// service) against its embedded simulator over loopback HTTP, on a clock the test moves.

const DAY = 86_400_000;
const SMALL_RECURRING = 'POLYGON((13.85 52.33, 13.88 52.33, 13.88 52.35, 13.85 52.35, 13.85 52.33))';
const SMALL_HISTORICAL = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';

function input(t: TestApp, recurring: boolean, over: Partial<Watch> = {}) {
  const o = t.demoOrder(recurring);
  return {
    name: recurring ? 'Recurring demo' : 'Historical demo',
    source: { kind: 'order' as const, orderId: o.guid, recurring },
    area: { Wkt: recurring ? SMALL_RECURRING : SMALL_HISTORICAL },
    model: o.model,
    constellations: o.constellations,
    from: o.from,
    to: o.to,
    settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16' as const, Resolution: 80, PixelSelectionMode: 'intersect' as const },
    capEur: null,
    everyHours: 6,
    ...over,
  };
}

async function serviceDates(t: TestApp, wkt: string, from: string, model: string, cons: string[]): Promise<string[]> {
  const r = await t.call('imagery:search', { request: { Wkt: wkt, From: from, Until: null, Model: model, SatelliteConstellations: cons } });
  return [...new Set<string>(r.data.ModelImageDates.flatMap((g: any) => g.DatesByGeog.flatMap((d: any) => d.Dates)))].map((d) => d.slice(0, 10)).sort();
}

/** A period holding only the historical order's last image date. */
async function lastDateOnly(t: TestApp): Promise<{ from: string; to: string }> {
  const o = t.demoOrder(false);
  const last = (await serviceDates(t, SMALL_HISTORICAL, o.from, o.model, o.constellations)).at(-1)!;
  return { from: last, to: last };
}

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

describe('watch runner against the simulator', () => {
  it('downloads every existing date of a recurring order into the library, then the new date when the clock moves on', async () => {
    t = await startTestApp();
    const w0 = await t.call<Watch>('watches:create', input(t, true));
    const w1 = await settled(t, w0.id);
    const o = t.demoOrder(true);
    const expected = await serviceDates(t, SMALL_RECURRING, o.from, o.model, o.constellations);
    expect(expected.length).toBeGreaterThan(3);
    expect(w1.state).toBe('active');
    expect(w1.dates.map((d) => [d.date, d.state])).toEqual(expected.map((d) => [d, 'downloaded']));
    // The window hears of each change with the watch's summary, the last one as the run left it.
    const change = t.events.filter((e) => e.event === 'watch:changed' && e.payload.id === w0.id).at(-1)!.payload;
    expect(change.watch).toMatchObject({ id: w0.id, running: false, dateCount: w1.dates.length, counts: { downloaded: w1.dates.length }, latest: w1.dates.slice(-24).map((d) => ({ date: d.date, state: d.state, libraryId: d.libraryIds[0] })) });
    const library = (await t.call('library:query', { limit: 500 })).entries as { id: string; path: string; date: string | null }[];
    for (const d of w1.dates) {
      expect(d.libraryIds).toHaveLength(1);
      const entry = library.find((e) => e.id === d.libraryIds[0])!;
      expect(entry.date).toBe(d.date);
      expect(existsSync(entry.path)).toBe(true);
      // In the watch's own folder under the download folder.
      expect(path.dirname(entry.path)).toContain(path.join('Downloads', 'watches', 'Recurring-demo-'));
    }
    // One notification for the run, not one card per date; it follows the run's saved state.
    const notes = await vi.waitFor(() => {
      const found = t!.events.filter((e) => e.event === 'notification' && e.payload.kind === 'watchDownloaded');
      expect(found).toHaveLength(1);
      return found;
    });
    expect(notes[0]!.payload).toMatchObject({ title: `Watch "Recurring demo": ${expected.length} new dates`, target: { panel: 'library', watchId: w0.id } });
    expect(notes[0]!.payload.body).toContain(expected[0]);
    expect(notes[0]!.payload.body).toContain(expected.at(-1));

    // A run with nothing new downloads nothing.
    await t.call('watches:run', { id: w0.id });
    const w2 = await settled(t, w0.id, w1.lastRunAt);
    expect(w2.dates).toHaveLength(expected.length);
    expect(w2.lastResult).toContain('No new dates');

    // A week later the order has a new image date: exactly that one is downloaded, with a notification.
    t.clock.now += 7 * DAY;
    const later = await serviceDates(t, SMALL_RECURRING, o.from, o.model, o.constellations);
    const fresh = later.filter((d) => !expected.includes(d));
    expect(fresh).toHaveLength(1);
    await t.call('watches:run', { id: w0.id });
    const w3 = await settled(t, w0.id, w2.lastRunAt);
    expect(w3.dates.map((d) => d.date)).toEqual(later);
    expect(w3.lastResult).toContain(`Downloaded ${fresh[0]}`);
    // The run's notification follows its saved state: wait for it.
    const after = await vi.waitFor(() => {
      const found = t!.events.filter((e) => e.event === 'notification' && e.payload.kind === 'watchDownloaded');
      expect(found).toHaveLength(2);
      return found;
    });
    const last = after.at(-1)!.payload;
    expect(last).toMatchObject({ kind: 'watchDownloaded', title: 'Watch "Recurring demo": 1 new date', target: { panel: 'library', watchId: w0.id, libraryId: w3.dates.at(-1)!.libraryIds[0] } });
    expect(last.body).toContain(fresh[0]);
  });

  it('pauses at the monthly budget with a notice and downloads nothing past it without confirmation', async () => {
    t = await startTestApp();
    // Every download of the historical order now costs credit (its included downloads are used up).
    t.demoOrder(false).downloadsUsed = 1000;
    t.demoOrder(true).downloadsUsed = 1000;
    const spend0 = await t.call('spend:set-budget', { budgetEur: 0.01 });
    expect(spend0).toMatchObject({ budgetEur: 0.01, overBudget: false });
    const w0 = await t.call<Watch>('watches:create', input(t, false));
    const w1 = await settled(t, w0.id);
    expect(w1.state).toBe('paused');
    expect(w1.notice).toMatch(/Paused at the monthly budget: \d{4}-\d{2}-\d{2} costs [\d.]+ EUR/);
    expect(w1.dates).toEqual([]);
    expect((await t.call('library:query', { limit: 500 })).entries).toEqual([]);
    await expect.poll(() => t!.events.some((e) => e.event === 'notification' && e.payload.kind === 'watchAttention' && e.payload.target.watchId === w0.id)).toBe(true);

    // Resuming without raising the budget pauses it again (nothing downloaded); going past it needs main's dialog,
    // which this host (like the browser host) does not have.
    await t.call('watches:resume', { id: w0.id });
    const w2 = await settled(t, w0.id, w1.lastRunAt);
    expect(w2.state).toBe('paused');
    expect(w2.dates).toEqual([]);
    await expect(t.call('watches:resume', { id: w0.id, pastCap: true })).rejects.toMatchObject({ kind: 'validation' });

    // Nor can this host clear the budget; the watch's own cap (checked first) stops it the same way.
    await expect(t.call('spend:set-budget', { budgetEur: null })).rejects.toMatchObject({ kind: 'validation' });
    await t.call('watches:update', { id: w0.id, patch: { capEur: 0.01 } });
    // Raising or clearing the cap again needs main's dialog too.
    await expect(t.call('watches:update', { id: w0.id, patch: { capEur: null } })).rejects.toMatchObject({ kind: 'validation' });
    await t.call('watches:resume', { id: w0.id });
    const w3 = await settled(t, w0.id, w2.lastRunAt);
    expect(w3.state).toBe('paused');
    expect(w3.notice).toMatch(/Paused at its cap/);
    expect(w3.dates).toEqual([]);
  });

  it('goes past the budget once the analyst confirms in main\'s dialog, and records what it spent in the ledger', async () => {
    const asked: string[] = [];
    t = await startTestApp({ confirm: async (r) => (asked.push(r.message), true) });
    t.demoOrder(false).downloadsUsed = 1000;
    await t.call('spend:set-budget', { budgetEur: 0.01 });
    const w0 = await t.call<Watch>('watches:create', input(t, false, await lastDateOnly(t)));
    const w1 = await settled(t, w0.id);
    expect(w1.state).toBe('paused');
    await t.call('watches:resume', { id: w0.id, pastCap: true });
    const w2 = await settled(t, w0.id, w1.lastRunAt);
    expect(asked).toHaveLength(1);
    expect(w2.state).toBe('active');
    expect(w2.dates.map((d) => d.state)).toEqual(['downloaded']);
    expect(w2.dates[0]!.costEur).toBeGreaterThan(0);
    const spend = await t.call('spend:get', { costEur: 1 });
    // The demo service's billing summary names this month's totals, so that is where spend comes from.
    expect(spend.source).toBe('billing');
    expect(spend.spentEur).toBeGreaterThanOrEqual(w2.dates[0]!.costEur!);
    expect(spend.afterEur).toBeCloseTo(spend.spentEur + 1, 2);
  });

  it('stops on a refusal (no credit, 994) with what to do, and does not retry it on its own', async () => {
    t = await startTestApp();
    const acc = t.account();
    t.demoOrder(false).downloadsUsed = 1000;
    // No credit left: every paid download is refused with 994.
    t.sim.state.addLedger(acc, 'Download', -t.sim.state.balance(acc), 'test: drain', null);
    const w0 = await t.call<Watch>('watches:create', input(t, false));
    const w1 = await settled(t, w0.id);
    expect(w1.state).toBe('attention');
    expect(w1.notice).toMatch(/^Not enough credit: redeem a voucher or top up.*The service said: “/);
    expect(w1.nextRunAt).toBeNull();
    await expect.poll(() => t!.events.filter((e) => e.event === 'notification' && e.payload.kind === 'watchAttention')).toHaveLength(1);
    const jobs = (await t.call('downloads:list')).jobs as { state: string; errorKind?: string }[];
    // One refused download, not a loop of them.
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ state: 'failed', errorKind: 'credit' });
  });

  it('retries a service that went away with backoff, then asks for attention after 4 failures in a row', async () => {
    t = await startTestApp();
    const w0 = await t.call<Watch>('watches:create', input(t, false, await lastDateOnly(t)));
    let w = await settled(t, w0.id);
    expect(w.dates.map((d) => d.state)).toEqual(['downloaded']);
    await t.sim.close();
    for (let attempt = 1; attempt <= 4; attempt++) {
      const started = Date.now();
      await t.call('watches:run', { id: w0.id });
      w = await settled(t, w0.id, w.lastRunAt);
      expect(w.failures).toBe(attempt);
      if (attempt < 4) {
        expect(w.state).toBe('active');
        expect(w.lastResult).toMatch(new RegExp(`^Attempt ${attempt} failed`));
        // Backoff: 1, 4, 16 minutes (with jitter down to half), never at once.
        expect(Date.parse(w.nextRunAt!) - started).toBeGreaterThanOrEqual(0.5 * 60_000 * 4 ** (attempt - 1) - 1000);
      }
    }
    expect(w.state).toBe('attention');
    expect(w.notice).toMatch(/failed 4 times in a row.*Run now/);
    expect(w.nextRunAt).toBeNull();
    // The notification follows the saved state (a list call can land between the two).
    await expect.poll(() => t!.events.filter((e) => e.event === 'notification' && e.payload.kind === 'watchAttention')).toHaveLength(1);
    // The downloaded date is still there.
    expect(w.dates.map((d) => d.state)).toEqual(['downloaded']);
  });

  it('deletes a watch without touching its files unless asked', async () => {
    t = await startTestApp();
    const only = await lastDateOnly(t);
    // Two watches of one date at different resolutions: each downloads its own file (an identical request would link the first's).
    const mk = (Resolution: number) => t!.call<Watch>('watches:create', input(t!, false, { ...only, settings: { ...input(t!, false).settings, Resolution } }));
    const a = await settled(t, (await mk(80)).id);
    const b = await settled(t, (await mk(40)).id);
    const fileA = a.dates[0]!.files[0]!;
    const fileB = b.dates[0]!.files[0]!;
    expect(await t.call('watches:delete', { id: a.id, deleteFiles: false })).toEqual({ deleted: true, filesDeleted: 0 });
    expect(existsSync(fileA)).toBe(true);
    expect(await t.call('watches:delete', { id: b.id, deleteFiles: true })).toEqual({ deleted: true, filesDeleted: 1 });
    expect(existsSync(fileB)).toBe(false);
    expect(existsSync(fileA)).toBe(true);
    expect((await t.call('watches:list')).watches).toEqual([]);
  });
});
