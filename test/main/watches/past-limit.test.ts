import { afterEach, describe, expect, it } from 'vitest';
import type { Watch } from '../../../main/watches';
import { settled, startTestApp, type TestApp } from './app-helpers';

// "Spend past the limit" is agreed in main's dialog for what the watch buys at that moment; an edit
// that changes what it buys (area, period, settings…) ends it, so the next purchase past the budget
// pauses the watch and asks again. The app core against its embedded simulator over loopback HTTP.

const AREA = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const OTHER_AREA = 'POLYGON((13.40 52.50, 13.44 52.50, 13.44 52.52, 13.40 52.52, 13.40 52.50))';

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function imageDates(t: TestApp, from: string, model: string, constellations: string[]): Promise<string[]> {
  const r = await t.call('imagery:search', { request: { Wkt: AREA, From: from, Until: null, Model: model, SatelliteConstellations: constellations } });
  return [...new Set<string>(r.data.ModelImageDates.flatMap((g: any) => g.DatesByGeog.flatMap((d: any) => d.Dates)))].map((d) => d.slice(0, 10)).sort();
}

describe('a watch allowed past its limit', () => {
  it('asks again once its area, period or settings change, and keeps the consent for an edit that buys the same', async () => {
    const asked: string[] = [];
    t = await startTestApp({ confirm: async (r) => (asked.push(r.title), true) });
    const order = t.demoOrder(false);
    // Every download of the historical order costs credit (its included downloads are used up).
    order.downloadsUsed = 1000;
    const dates = await imageDates(t, order.from, order.model, order.constellations);
    expect(dates.length).toBeGreaterThan(2);
    const [second, last] = dates.slice(-2) as [string, string];
    await t.call('spend:set-budget', { budgetEur: 0.01 });
    const input = {
      name: 'Past the limit',
      source: { kind: 'order' as const, orderId: order.guid, recurring: false },
      area: { Wkt: AREA },
      model: order.model,
      constellations: order.constellations,
      from: last,
      to: last,
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16' as const, Resolution: 80, PixelSelectionMode: 'intersect' as const },
      capEur: null,
      everyHours: 6,
    };
    const w0 = await t.call<Watch>('watches:create', input);
    const w1 = await settled(t, w0.id);
    expect(w1.state).toBe('paused');

    await t.call('watches:resume', { id: w0.id, pastCap: true });
    const w2 = await settled(t, w0.id, w1.lastRunAt);
    expect(asked).toEqual(['Spend past the limit?']);
    expect(w2.dates.map((d) => [d.date, d.state])).toEqual([[last, 'downloaded']]);
    const agreed = w2.allowOverMonth;
    expect(agreed).not.toBeNull();

    // The whole form sent back with another name and schedule: it buys the same, so the consent stays.
    const renamed = await t.call<Watch>('watches:update', { id: w0.id, patch: { ...input, name: 'Renamed', everyHours: 12 } });
    expect(renamed.allowOverMonth).toBe(agreed);
    const w3 = await settled(t, w0.id, w2.lastRunAt);
    expect(w3.allowOverMonth).toBe(agreed);

    // A longer period buys another date: past the budget that pauses the watch again, nothing bought.
    const longer = await t.call<Watch>('watches:update', { id: w0.id, patch: { ...input, name: 'Renamed', from: second } });
    expect(longer.allowOverMonth).toBeNull();
    const w4 = await settled(t, w0.id, w3.lastRunAt);
    expect(w4.state).toBe('paused');
    expect(w4.notice).toMatch(new RegExp(`^Paused at the monthly budget: ${second} costs`));
    expect(w4.dates.map((d) => d.date)).toEqual([last]);
    expect(asked).toHaveLength(1);

    // Agreed again, then another area, and then other settings, each end it.
    await t.call('watches:resume', { id: w0.id, pastCap: true });
    const w5 = await settled(t, w0.id, w4.lastRunAt);
    expect(asked).toHaveLength(2);
    expect(w5.dates.map((d) => [d.date, d.state])).toEqual([[second, 'downloaded'], [last, 'downloaded']]);
    const moved = await t.call<Watch>('watches:update', { id: w0.id, patch: { area: { Wkt: OTHER_AREA } } });
    expect(moved.allowOverMonth).toBeNull();
    const w6 = await settled(t, w0.id, w5.lastRunAt);
    await t.call('watches:resume', { id: w0.id, pastCap: true });
    const w7 = await settled(t, w0.id, w6.lastRunAt);
    expect(w7.allowOverMonth).toBe(agreed);
    const resampled = await t.call<Watch>('watches:update', { id: w0.id, patch: { settings: { ...input.settings, Resolution: 40 } } });
    expect(resampled.allowOverMonth).toBeNull();
    await settled(t, w0.id, w7.lastRunAt);
  }, 180_000);
});

describe('a watch allowed past its limit while the policy\'s ceiling cannot be read', () => {
  it('still pauses at every spend: its month consent was never past the organisation\'s ceiling, which Swath cannot read', async () => {
    const asked: string[] = [];
    t = await startTestApp({
      confirm: async (r) => (asked.push(r.title), true),
      distribution: { policy: { status: 'applied', file: '/etc/swath/policy.json', problems: ['monthlyBudget: must be an object'], policy: {}, ceilingUnreadable: 'monthlyBudget: must be an object' } },
    });
    const order = t.demoOrder(false);
    order.downloadsUsed = 1000;
    const last = (await imageDates(t, order.from, order.model, order.constellations)).at(-1)!;
    const billed = () => t!.account().ledger.filter((e) => e.kind === 'Download').length;
    const before = billed();
    const w0 = await t.call<Watch>('watches:create', {
      name: 'Unreadable ceiling', source: { kind: 'order' as const, orderId: order.guid, recurring: false }, area: { Wkt: AREA },
      model: order.model, constellations: order.constellations, from: last, to: last,
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16' as const, Resolution: 80, PixelSelectionMode: 'intersect' as const },
      capEur: null, everyHours: 6,
    });
    const w1 = await settled(t, w0.id);
    expect(w1.state).toBe('paused');
    expect(w1.notice).toContain("the policy's ceiling cannot be read");

    // "Spend past the limit" agreed: it covers the cap and the budget, never a ceiling nobody can read.
    await t.call('watches:resume', { id: w0.id, pastCap: true });
    const w2 = await settled(t, w0.id, w1.lastRunAt);
    expect(asked).toEqual(['Spend past the limit?']);
    expect(w2.state).toBe('paused');
    expect(w2.notice).toContain("the policy's ceiling cannot be read");
    expect(w2.dates).toEqual([]);
    expect(billed()).toBe(before);
  }, 120_000);
});
