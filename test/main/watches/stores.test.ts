import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { electronNotifications, type NotificationClass } from '../../../main/notifications/electron';
import { Notifier } from '../../../main/notifications/notifier';
import { BILLING_FRESH_MS, SpendStore, spendFromBilling } from '../../../main/spend';
import { WatchStore, classify, fullyAvailable, watchRequest, type WatchDate } from '../../../main/watches';
import { issuesToFields } from '../../../main/ipc/dispatcher';
import { channels, watchChip, watchSummarySchema, WATCH_LATEST_DATES } from '../../../preload/contract';
import { watchMonthSpend } from '../../../main/watches/run-machine';
import { WATCH_INPUT as INPUT } from './watch-input';
import { makeTempDir, removeTempDirs } from '../../support/temp-dirs';

const tmp = (): string => makeTempDir('swath-watch-store-');
afterAll(removeTempDirs);

describe('WatchStore', () => {
  it('persists watches atomically and reads them back after a restart, per profile', async () => {
    const dir = tmp();
    const s = await WatchStore.open(dir, { now: () => Date.parse('2026-11-20T10:00:00Z') });
    const a = await s.create('p1', INPUT);
    await s.create('p2', { ...INPUT, name: 'Other' });
    await s.update(a.id, (w) => {
      w.running = true;
      w.dates.push({ date: '2026-11-01', state: 'downloaded', libraryIds: ['L1'], files: ['/x.tif'], jobId: 'j', costEur: 1.5, at: '2026-11-20T10:00:00.000Z' });
    });
    // In swath.db: no JSON file written next to it.
    expect(readdirSync(dir).filter((f) => !f.startsWith('swath.db'))).toEqual([]);
    const again = await WatchStore.open(dir);
    const [w] = again.list('p1');
    expect(w).toMatchObject({ name: 'Field A', state: 'active', nextRunAt: '2026-11-20T10:00:00.000Z', capEur: 20 });
    // A run cannot survive a restart.
    expect(w!.running).toBe(false);
    expect(w!.dates).toHaveLength(1);
    expect(again.list('p2').map((x) => x.name)).toEqual(['Other']);
  });

  it('leaves an unreadable record of an old watches.json out and imports the others; a torn file is set aside with a warning', async () => {
    const dir = tmp();
    const good = (await (await WatchStore.open(tmp())).create('p1', INPUT));
    writeFileSync(path.join(dir, 'watches.json'), JSON.stringify({ version: 1, watches: [good, { id: 'broken', name: 5 }] }));
    const warnings: string[] = [];
    expect((await WatchStore.open(dir, { onWarning: (l) => warnings.push(l) })).all().map((w) => w.id)).toEqual([good.id]);
    expect(warnings.join()).toContain('unreadable');
    const torn = tmp();
    writeFileSync(path.join(torn, 'watches.json'), '{"version":1,"watc');
    expect((await WatchStore.open(torn, { onWarning: (l) => warnings.push(l) })).all()).toEqual([]);
    expect(warnings.at(-1)).toContain('not valid JSON');
  });
});

describe('spend guard', () => {
  it('reads this month\'s spend from billing answers of either style, never counts or balances', () => {
    expect(spendFromBilling({ OrdersTotal: 12.5, DownloadsTotal: 3.25, OrderCount: 4, EuroBalance: 900 })).toBe(15.75);
    expect(spendFromBilling({ ordersTotal: 1, downloadsTotal: 2, downloadCount: 9, balanceEur: 5 })).toBe(3);
    expect(spendFromBilling({ CurrentMonthCosts: 42.1, OrdersTotal: 1 })).toBe(42.1);
    expect(spendFromBilling({ EuroBalance: 10, OrderCount: 2 })).toBeNull();
    expect(spendFromBilling(null)).toBeNull();
  });

  it('keeps a budget per profile and a ledger per month, and says where spend came from', async () => {
    const dir = tmp();
    let now = Date.parse('2026-11-30T23:00:00Z');
    const s = await SpendStore.open(dir, { now: () => now });
    await s.setBudget('p1', 50);
    await s.record('p1', 30, 'order');
    await s.record('p2', 99, 'other profile');
    const ledger = await s.view('p1', 25, null);
    expect(ledger).toMatchObject({ month: '2026-11', budgetEur: 50, spentEur: 30, source: 'ledger', costEur: 25, afterEur: 55, overBudget: true });
    expect(ledger.sourceNote).toContain('No billing');
    expect(await s.view('p1', 20, null)).toMatchObject({ afterEur: 50, overBudget: false });
    let asked = 0;
    const summary = async () => {
      asked++;
      return { OrdersTotal: 10, DownloadsTotal: 0 };
    };
    // Billing below Swath's own ledger (the service has not counted the order yet): the ledger counts.
    const billing = await s.view('p1', 25, summary);
    expect(billing).toMatchObject({ spentEur: 30, source: 'ledger', overBudget: true });
    expect(billing.sourceNote).toContain("billing summary (10.00 EUR) does not show all Swath spent");
    // Billing above it (spend elsewhere on the account): billing is the spend.
    now += BILLING_FRESH_MS + 1;
    let billed = 40;
    const grown = async () => (asked++, { OrdersTotal: billed });
    expect(await s.view('p1', 0, grown)).toMatchObject({ spentEur: 40, source: 'billing', sourceNote: null });
    // One summary serves the checks of the next minute; what Swath records meanwhile is added to it.
    now += 1_000;
    await s.record('p1', 4.5, 'order after the summary');
    expect(await s.view('p1', 25, grown)).toMatchObject({ spentEur: 44.5, source: 'billing', afterEur: 69.5 });
    expect(asked).toBe(2);
    // A summary that has not grown by it yet still has it added; one that has is the spend.
    now += BILLING_FRESH_MS + 1;
    expect(await s.view('p1', 0, grown)).toMatchObject({ spentEur: 44.5, source: 'billing' });
    now += BILLING_FRESH_MS + 1;
    billed = 44.5;
    expect(await s.view('p1', 0, grown)).toMatchObject({ spentEur: 44.5, source: 'billing' });
    // A summary that fails is not kept: the ledger answers, and the next check asks again.
    now += BILLING_FRESH_MS + 1;
    const failed = await s.view('p1', 0, async () => Promise.reject(new Error('HTTP 503')));
    expect(failed).toMatchObject({ source: 'ledger', spentEur: 34.5 });
    expect(failed.sourceNote).toContain('could not be read: HTTP 503');
    const unreadable = await s.view('p1', 0, async () => ({ Something: 'else' }));
    expect(unreadable).toMatchObject({ source: 'ledger', spentEur: 34.5 });
    expect(unreadable.sourceNote).toContain('names no spend');
    // A new month starts from zero; the budget and the file survive a restart.
    now = Date.parse('2026-12-01T01:00:00Z');
    const again = await SpendStore.open(dir, { now: () => now });
    expect(await again.view('p1', 0, null)).toMatchObject({ month: '2026-12', spentEur: 0, budgetEur: 50 });
    await again.setBudget('p1', null);
    expect((await again.view('p1', 1e6, null)).overBudget).toBe(false);
  });

  it('counts what a watch spent this month from its downloaded dates', () => {
    const d = (date: string, at: string, costEur: number | null, state: 'downloaded' | 'failed' = 'downloaded') => ({ date, state, libraryIds: [], files: [], jobId: null, costEur, at });
    expect(watchMonthSpend({ dates: [d('2026-10-30', '2026-10-31T00:00:00Z', 5), d('2026-11-01', '2026-11-02T00:00:00Z', 1.25), d('2026-11-03', '2026-11-04T00:00:00Z', 2, 'failed'), d('2026-11-05', '2026-11-06T00:00:00Z', null)] }, '2026-11')).toBe(1.25);
  });
});

describe('runner helpers', () => {
  it('builds the composite body from the watch settings, never ordering automatically', () => {
    const body = watchRequest(INPUT, '2026-11-05');
    expect(body).toMatchObject({ Wkt: INPUT.area.Wkt, Date: '2026-11-05', Model: 'Stratus2', EpsgProjection: 32633, Bandnames: 'ndvi', Resolution: 10, FileType: 'tif', AutomaticOrderCreation: false, UtmDataSelectionMode: 'combined_utm' });
    expect(watchRequest({ ...INPUT, settings: { ...INPUT.settings, EpsgProjection: 4326 } }, '2026-11-05')).not.toHaveProperty('UtmDataSelectionMode');
  });

  it('reads "fully available" by name, and sorts failures into skip, stop or retry', () => {
    expect(fullyAvailable({ FullyAvailable: false, PartiallyAvailable: true })).toBe(false);
    expect(fullyAvailable({ fully_available: true })).toBe(true);
    expect(fullyAvailable({ other: true })).toBeNull();
    expect(classify('coverage', 'x').handling).toBe('skip-date');
    expect(classify('credit', 'x').handling).toBe('attention');
    expect(classify('auth', 'x').handling).toBe('attention');
    expect(classify('validation', 'x').handling).toBe('attention');
    expect(classify('transient', 'x').handling).toBe('retry');
    expect(classify('rate-limited', 'x').handling).toBe('retry');
    expect(classify(null, 'x').handling).toBe('retry');
  });
});

describe('notifications', () => {
  it('sends each notification to the window, natively where the host can, and honours the switches', async () => {
    const dir = tmp();
    const events: any[] = [];
    const shown: any[] = [];
    class FakeNotification {
      static isSupported() {
        return true;
      }
      private click: (() => void) | null = null;
      constructor(readonly options: { title: string; body: string }) {}
      on(_e: 'click', l: () => void) {
        this.click = l;
      }
      show() {
        shown.push(this);
      }
      fire() {
        this.click?.();
      }
    }
    let focused = 0;
    const n = await Notifier.open(dir, {
      emit: ((e: string, p: unknown) => events.push({ e, p })) as never,
      showNative: electronNotifications(FakeNotification as unknown as NotificationClass),
      onOpen: () => focused++,
    });
    expect(n.notify({ kind: 'watchDownloaded', title: 'New imagery', body: '2026-11-05', target: { panel: 'library', watchId: 'w' } })).toBe(true);
    expect(shown.map((s) => s.options)).toEqual([{ title: 'New imagery', body: '2026-11-05' }]);
    expect(events[0]).toMatchObject({ e: 'notification', p: { kind: 'watchDownloaded', native: true } });
    shown[0].fire();
    expect(focused).toBe(1);
    expect(events[1]).toMatchObject({ p: { open: true, target: { panel: 'library', watchId: 'w' } } });

    await n.set({ watchDownloaded: false });
    expect(n.notify({ kind: 'watchDownloaded', title: 'x', body: 'y', target: { panel: 'library' } })).toBe(false);
    expect(shown).toHaveLength(1);
    // The switch survives a restart.
    const again = await Notifier.open(dir, { emit: (() => undefined) as never });
    expect(again.get()).toEqual({ watchDownloaded: false, watchAttention: true, orderStatus: true, orderDeadline: true, fieldChange: true });

    // Field changes have their own switch: off, they are not shown while a watch's attention still is.
    await again.set({ fieldChange: false });
    expect(again.notify({ kind: 'fieldChange', title: 'Farm: 3 fields dropped', body: 'b', target: { panel: 'fields', watchId: 'w' } })).toBe(false);
    expect(again.notify({ kind: 'watchAttention', title: 'Watch paused', body: 'b', target: { panel: 'watches', watchId: 'w' } })).toBe(true);

    // Without native notifications (browser host) the window shows it itself.
    const plain = await Notifier.open(tmp(), { emit: ((e: string, p: unknown) => events.push({ e, p })) as never });
    plain.notify({ kind: 'orderDeadline', title: 'Deadline', body: 'soon', target: { panel: 'tasking' } });
    expect(events.at(-1)).toMatchObject({ p: { kind: 'orderDeadline', native: false } });
  });
});

describe('watch summaries and paged dates', () => {
  const NOW = Date.parse('2026-11-20T10:00:00Z');
  const STATES = ['downloaded', 'queued', 'skipped', 'failed'] as const;
  /** 103 dates of every state, some downloaded this month and some before, each a distinct day. */
  const datesOf = (n: number): WatchDate[] => Array.from({ length: n }, (_, k) => ({
    date: new Date(Date.parse('2025-01-01T00:00:00Z') + k * 86_400_000).toISOString().slice(0, 10),
    state: k % 7 === 0 ? 'failed' : k % 5 === 0 ? 'skipped' : k % 11 === 0 ? 'queued' : 'downloaded',
    ...(k % 7 === 0 ? { note: `refused ${k}` } : {}), libraryIds: [`L${k}`], files: [`/w/${k}.tif`], jobId: `j${k}`, costEur: (k % 4) * 0.25,
    at: k % 3 === 0 ? '2026-11-02T08:00:00.000Z' : '2026-10-30T08:00:00.000Z',
  }));
  async function storeWith(n: number) {
    const s = await WatchStore.open(tmp(), { now: () => NOW });
    const { id } = await s.create('p1', INPUT);
    await s.update(id, (w) => void w.dates.push(...datesOf(n)));
    return { s, id, dates: s.get(id)!.dates };
  }

  it('counts a watch\'s dates by state, sums this month\'s spend and carries only the latest dates', async () => {
    const { s, id, dates } = await storeWith(103);
    const summary = s.summary(id)!;
    expect(watchSummarySchema.strict().parse(summary)).toEqual(summary);
    expect(summary).not.toHaveProperty('dates');
    expect(summary.dateCount).toBe(103);
    for (const state of STATES) expect(summary.counts[state], state).toBe(dates.filter((d) => d.state === state).length);
    expect(STATES.every((state) => summary.counts[state] > 0)).toBe(true);
    expect(summary.latest).toEqual(dates.slice(-WATCH_LATEST_DATES).map((d) => ({ date: d.date, state: d.state, ...(d.note ? { note: d.note } : {}), libraryId: d.libraryIds[0] })));
    const spent = dates.filter((d) => d.state === 'downloaded' && d.at.startsWith('2026-11')).reduce((sum, d) => sum + (d.costEur ?? 0), 0);
    expect(spent).toBeGreaterThan(0);
    expect(summary.monthSpentEur).toBeCloseTo(spent, 9);
    expect(s.summaries('p1')).toEqual([summary]);
    expect(s.summaries('p2')).toEqual([]);
    // Fewer dates than a card shows: all of them.
    const few = await storeWith(5);
    expect(few.s.summary(few.id)!.latest).toEqual(few.dates.map(watchChip));
  });

  it('pages a watch\'s dates: every date exactly once, in order, whatever the page size', async () => {
    const { s, id, dates } = await storeWith(103);
    for (const limit of [1, 7, 24, 100, 500]) {
      const got: WatchDate[] = [];
      for (let offset = 0; offset < dates.length; offset += limit) {
        const page = s.datesPage(id, 'p1', offset, limit);
        expect(page.total).toBe(103);
        expect(page.dates.length).toBe(Math.min(limit, dates.length - offset));
        got.push(...page.dates);
      }
      expect(got, `limit ${limit}`).toEqual(dates);
    }
    expect(s.datesPage(id, 'p1', 103, 10)).toEqual({ total: 103, dates: [] });
    expect(() => s.datesPage(id, 'p2', 0, 10)).toThrow(/No watch/);
    // A page is a copy: changing it changes nothing in the store.
    s.datesPage(id, 'p1', 0, 1).dates[0]!.state = 'failed';
    expect(s.get(id)!.dates[0]).toEqual(dates[0]);
  });

  it('refuses a dates page that is too large, negative or not whole, naming the field', () => {
    const req = channels['watches:dates'].request;
    expect(req.safeParse({ id: 'w', offset: 0, limit: 500 }).success).toBe(true);
    const fields = (payload: unknown) => issuesToFields(req.safeParse(payload).error!.issues);
    expect(fields({ id: 'w', offset: 0, limit: 501 })).toEqual({ limit: ['limit is at most 500.'] });
    expect(fields({ id: 'w', offset: -1, limit: 0 })).toEqual({ offset: ['offset must be 0 or more.'], limit: ['limit must be at least 1.'] });
    expect(fields({ id: 'w', offset: 1.5, limit: 10 })).toEqual({ offset: ['offset must be a whole number.'] });
    expect(Object.keys(fields({ id: '', offset: 0, limit: 10, all: true }))).toEqual(expect.arrayContaining(['id']));
  });
});

describe('admin policy', () => {
  it('caps every profile\'s budget at the policy\'s ceiling and refuses a higher one', async () => {
    const s = await SpendStore.open(tmp(), { ceilingEur: 100 });
    expect(s.budget('p1')).toBe(100);
    await s.setBudget('p1', 40);
    expect(s.budget('p1')).toBe(40);
    await expect(s.setBudget('p1', 150)).rejects.toMatchObject({ kind: 'validation' });
    expect((await s.view('p1', 50, null)).overBudget).toBe(true);
  });

  it('turns every notification off when the policy says so', async () => {
    const events: unknown[] = [];
    const n = await Notifier.open(tmp(), { emit: ((e: string) => events.push(e)) as never, offByPolicy: true });
    expect(n.notify({ kind: 'watchAttention', title: 't', body: 'b', target: { panel: 'watches' } })).toBe(false);
    expect(events).toEqual([]);
    expect(Object.values(n.get())).toEqual([false, false, false, false, false]);
  });
});
