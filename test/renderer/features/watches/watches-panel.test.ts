// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { bridgeStandIn } from '../../fake-bridge';
import WatchesPanel from '../../../../renderer/src/features/watches/views/WatchesPanel.vue';

const fake = bridgeStandIn();

const DAY = 86_400_000;
const at = '2025-01-01T00:00:00.000Z';
/** `n` downloaded dates of watch `i`, every third day from 2025-01-01, oldest first. */
const datesOf = (i: number, n: number) => Array.from({ length: n }, (_, k) => ({
  date: new Date(Date.parse(at) + k * 3 * DAY).toISOString().slice(0, 10), state: 'downloaded', libraryIds: [`l${i}-${k}`], files: [], jobId: null, costEur: 0.5, at,
}));
/** A watch as main lists it: a summary of its `n` downloaded dates with the latest 24. */
function watchOf(i: number, n: number) {
  return {
    id: `w${i}`, profileId: 'demo', name: `Field ${i}`, source: { kind: 'aoi', orderId: null, recurring: null },
    area: { Wkt: 'POLYGON((5 45, 5.1 45, 5.1 45.1, 5 45.1, 5 45))' }, model: 'Stratus2', constellations: ['Sentinel2'], from: '2025-01-01', to: null,
    settings: { EpsgProjection: 32633, Bandnames: 'ndvi', DataType: 'INT16', Resolution: 10, PixelSelectionMode: 'intersect' },
    capEur: null, everyHours: 24, state: 'paused', notice: null, running: false, lastRunAt: at, lastResult: null, nextRunAt: null, failures: 0,
    allowOverMonth: null, createdAt: at, updatedAt: at,
    dateCount: n, counts: { downloaded: n, queued: 0, skipped: 0, failed: 0 }, monthSpentEur: 0, latest: datesOf(i, n).slice(-24).map((d) => ({ date: d.date, state: d.state, libraryId: d.libraryIds[0] })),
  };
}

beforeEach(() => {
  setActivePinia(createPinia());
});

describe('the Watches panel at scale', () => {
  it('draws only the cards in view, each with its latest dates, the earlier ones on request', async () => {
    const list = Array.from({ length: 400 }, (_, i) => watchOf(i, 100));
    const pages: { offset: number; limit: number }[] = [];
    fake.api = {
      watchesList: vi.fn(async () => ({ ok: true, data: { watches: list } })),
      watchesDates: vi.fn(async ({ id, offset, limit }: { id: string; offset: number; limit: number }) => {
        pages.push({ offset, limit });
        return { ok: true, data: { total: 100, dates: datesOf(Number(id.slice(1)), 100).slice(offset, offset + limit) } };
      }),
      spendGet: vi.fn(async () => ({ ok: true, data: { profileId: 'demo', month: '2025-01', budgetEur: null, spentEur: 0, source: 'ledger', sourceNote: null, costEur: 0 } })),
      on: vi.fn(() => () => undefined),
    };
    const w = mount(WatchesPanel, { attachTo: document.body });
    await flushPromises();
    expect(w.findAll('[data-testid="watch-card"]').length).toBeGreaterThan(0);
    const cards = w.findAll('[data-testid="watch-card"]');
    expect(cards.length).toBeLessThan(20);
    expect(cards[0]!.attributes('aria-setsize')).toBe('400');
    const first = cards[0]!;
    // The latest 24 of 100 dates, the newest last; a button for the 76 earlier ones.
    const chips = () => first.findAll('[data-testid="watch-dates"] .chip:not(.more)');
    expect(chips()).toHaveLength(24);
    expect(chips().at(-1)!.text()).toBe(list[0]!.latest.at(-1)!.date.slice(5));
    const more = first.get('[data-testid="watch-dates-more"]');
    expect(more.text()).toContain('76 earlier');
    await more.trigger('click');
    await flushPromises();
    expect(chips()).toHaveLength(100);
    // The 76 earlier dates came from main in one page, and every date shows once, oldest first.
    expect(pages).toEqual([{ offset: 0, limit: 76 }]);
    expect(chips().map((c) => c.text())).toEqual(datesOf(0, 100).map((d) => d.date.slice(5)));
    expect(more.attributes('aria-expanded')).toBe('true');
    expect(first.get('[data-testid="watch-dates"]').text()).toContain('100 downloaded');
    w.unmount();
  });

  it('applies a changed watch by id from its event, without listing every watch again', async () => {
    const list = Array.from({ length: 30 }, (_, i) => watchOf(i, 30));
    const listeners: ((e: unknown) => void)[] = [];
    fake.api = {
      watchesList: vi.fn(async () => ({ ok: true, data: { watches: list } })),
      spendGet: vi.fn(async () => ({ ok: true, data: { profileId: 'demo', month: '2025-01', budgetEur: null, spentEur: 0, source: 'ledger', sourceNote: null, costEur: 0 } })),
      on: vi.fn((_event: string, fn: (e: unknown) => void) => (listeners.push(fn), () => undefined)),
    };
    const w = mount(WatchesPanel, { attachTo: document.body });
    const card = (id: string) => w.find(`[data-watch-id="${id}"]`);
    await flushPromises();
    expect(card('w0').exists()).toBe(true);
    const ran = { ...watchOf(0, 31), name: 'Field 0 renamed', counts: { downloaded: 29, queued: 0, skipped: 1, failed: 1 } };
    listeners.forEach((fn) => fn({ id: 'w0', watch: ran }));
    await flushPromises();
    expect(card('w0').get('.name').text()).toBe('Field 0 renamed');
    expect(card('w0').get('[data-testid="watch-dates"]').text()).toContain('29 downloaded · 1 skipped · 1 failed');
    expect(card('w0').get('[data-testid="watch-dates-more"]').text()).toContain('7 earlier');
    listeners.forEach((fn) => fn({ id: 'w1', deleted: true }));
    await flushPromises();
    expect(card('w1').exists()).toBe(false);
    expect(w.findAll('[data-testid="watch-card"]')[0]!.attributes('aria-setsize')).toBe('29');
    expect((fake.api as { watchesList: ReturnType<typeof vi.fn> }).watchesList).toHaveBeenCalledTimes(1);
    w.unmount();
  });

  it("shows main's one figure of the month's spend, asked again whenever main says it changed", async () => {
    const listeners = new Map<string, ((e: unknown) => void)[]>();
    let spent = 67.73;
    const spendGet = vi.fn(async () => ({ ok: true, data: { profileId: 'demo', month: '2026-11', budgetEur: 70, spentEur: spent, source: 'billing', sourceNote: null, costEur: 0, afterEur: spent, overBudget: false, ceilingEur: null, decision: 'ok', reason: '', costKnown: true, costNote: null } }));
    fake.api = {
      watchesList: vi.fn(async () => ({ ok: true, data: { watches: [watchOf(0, 5)] } })),
      spendGet,
      on: vi.fn((event: string, fn: (e: unknown) => void) => (listeners.set(event, [...(listeners.get(event) ?? []), fn]), () => undefined)),
    };
    const w = mount(WatchesPanel, { attachTo: document.body });
    await flushPromises();
    const line = () => w.get('[data-testid="watches-spend"]').text();
    expect(line()).toContain('67.73');
    // A watch bought five more dates: main says the month changed, and the line shows main's new figure.
    spent = 69.63;
    for (const fn of listeners.get('spend:changed') ?? []) fn({});
    await flushPromises();
    expect(line()).toContain('69.63');
    expect(line()).not.toContain('67.73');
    w.unmount();
  });
});
