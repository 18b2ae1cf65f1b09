// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const fake = vi.hoisted(() => ({ api: null as unknown }));
vi.mock('../../../../renderer/src/bridge', () => ({ getBridge: () => fake.api }));

const WatchesPanel = (await import('../../../../renderer/src/features/watches/views/WatchesPanel.vue')).default;

const DAY = 86_400_000;
/** A watch as main lists it, with `dates` downloaded dates (every third day from 2025-01-01). */
function watchOf(i: number, dates: number) {
  const at = '2025-01-01T00:00:00.000Z';
  return {
    id: `w${i}`, profileId: 'demo', name: `Field ${i}`, source: { kind: 'aoi', orderId: null, recurring: null },
    area: { Wkt: 'POLYGON((5 45, 5.1 45, 5.1 45.1, 5 45.1, 5 45))' }, model: 'Stratus2', constellations: ['Sentinel2'], from: '2025-01-01', to: null,
    settings: { EpsgProjection: 32633, Bandnames: 'ndvi', DataType: 'INT16', Resolution: 10, PixelSelectionMode: 'intersect' },
    capEur: null, everyHours: 24, state: 'paused', notice: null, running: false, lastRunAt: at, lastResult: null, nextRunAt: null, failures: 0,
    allowOverMonth: null, createdAt: at, updatedAt: at,
    dates: Array.from({ length: dates }, (_, k) => ({
      date: new Date(Date.parse(at) + k * 3 * DAY).toISOString().slice(0, 10), state: 'downloaded', libraryIds: [`l${i}-${k}`], files: [], jobId: null, costEur: 0.5, at,
    })),
  };
}

beforeEach(() => {
  setActivePinia(createPinia());
});

describe('the Watches panel at scale', () => {
  it('draws only the cards in view, each with its latest dates, the earlier ones on request', async () => {
    const list = Array.from({ length: 400 }, (_, i) => watchOf(i, 100));
    fake.api = {
      watchesList: vi.fn(async () => ({ ok: true, data: { watches: list } })),
      spendGet: vi.fn(async () => ({ ok: true, data: { profileId: 'demo', month: '2025-01', budgetEur: null, spentEur: 0, source: 'ledger', sourceNote: null, costEur: 0 } })),
      on: vi.fn(() => () => undefined),
    };
    const w = mount(WatchesPanel, { attachTo: document.body });
    await vi.waitFor(async () => {
      await flushPromises();
      expect(w.findAll('[data-testid="watch-card"]').length).toBeGreaterThan(0);
    });
    const cards = w.findAll('[data-testid="watch-card"]');
    expect(cards.length).toBeLessThan(20);
    expect(cards[0]!.attributes('aria-setsize')).toBe('400');
    const first = cards[0]!;
    // The latest 24 of 100 dates, the newest last; a button for the 76 earlier ones.
    const chips = () => first.findAll('[data-testid="watch-dates"] .chip:not(.more)');
    expect(chips()).toHaveLength(24);
    expect(chips().at(-1)!.text()).toBe(list[0]!.dates.at(-1)!.date.slice(5));
    const more = first.get('[data-testid="watch-dates-more"]');
    expect(more.text()).toContain('76 earlier');
    await more.trigger('click');
    expect(chips()).toHaveLength(100);
    expect(more.attributes('aria-expanded')).toBe('true');
    expect(first.get('[data-testid="watch-dates"]').text()).toContain('100 downloaded');
    w.unmount();
  });
});
