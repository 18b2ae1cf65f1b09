import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderCost } from '../../../../common/money';
import { billedArea, billedNote, orderAreas, polygonalOf } from '../../../../renderer/src/platform/lib/billed-area';
import { costBreakdown, estimateAreas, formatAmount } from '../../../../renderer/src/features/tasking/model/tasking-estimate';
import { ANSWER_STYLES, T0, startTestSim, type TestSim } from '../../../simulator/helpers';

/**
 * The areas and the cost breakdown against the simulator's real estimate answers, in every answer style: the
 * billed area the renderer derives by the service's rule (each polygon by its lon/lat bounding box,
 * at least 1 km²) is the one the estimate states, and the cost breakdown has one line per amount of
 * this order, no zeros or duplicates, and the account's month apart.
 */

// Two polygons: a triangle (its box is twice its area) and a sliver far under 1 km².
const TRIANGLE = '(13.30 52.40, 13.40 52.40, 13.30 52.46, 13.30 52.40)';
const SLIVER = '(13.50 52.40, 13.505 52.40, 13.505 52.402, 13.50 52.402, 13.50 52.40)';
const AOI = `MULTIPOLYGON((${TRIANGLE}), (${SLIVER}))`;
const day = (offset: number) => new Date(T0 + offset * 86_400_000).toISOString().slice(0, 10);
const BASE = { Wkt: AOI, Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], StorageMonths: 0, ApiRequests: 0, ImageFrequency: 7 };

for (const shapes of ANSWER_STYLES) {
  describe(`an order estimate in the ${shapes} style`, () => {
    let t: TestSim;
    beforeAll(async () => { t = await startTestSim({ shapes } as never); });
    afterAll(async () => { await t?.close(); });

    const estimate = async (over: Record<string, unknown>) => {
      const r = await t.call('POST', '/api/tasking/orders/estimate', { ...BASE, ...over });
      expect(r.status).toBe(200);
      return r.json.Data as Record<string, unknown>;
    };

    it('states the billed area the renderer derives from the AOI by the billing rule, and says why it is not the AOI', async () => {
      const data = await estimate({ ReferenceDate: day(-30), From: day(-30), To: day(-1) });
      const g = polygonalOf(AOI)!;
      const rule = billedArea(g);
      const stated = estimateAreas(data);
      expect(stated.billed!.value).toBeCloseTo(rule.billedKm2, 2);
      expect(stated.beforeMinimum!.value).toBeCloseTo(rule.boxesKm2, 3);
      // The triangle's box is twice the triangle; the sliver is billed 1 km².
      expect(rule.billedKm2).toBeGreaterThan(rule.aoiKm2 * 1.9);
      expect(boxOf(TRIANGLE)).toBeCloseTo(2 * billedArea(polygonalOf(`POLYGON(${TRIANGLE})`)!).aoiKm2, 1);
      expect(rule.billedKm2 - rule.boxesKm2).toBeCloseTo(1 - boxOf(SLIVER), 3);
      expect(billedNote(rule.aoiKm2, stated.billed!.value, rule.polygons)).toMatch(/each of the AOI's 2 polygons by its longitude\/latitude bounding box/);
      // An order row carries the AOI (its geometry): the list shows the AOI's area and the billed one.
      const areas = orderAreas({ geometry: AOI, areaKm2: rule.aoiKm2, tiles: [], miniTiles: [] });
      expect(areas.aoiKm2).toBeCloseTo(rule.aoiKm2, 6);
      expect(areas.billedKm2).toBeCloseTo(stated.billed!.value, 2);
    });

    it('a historical order: one charge line, no zeros, the account month apart', async () => {
      const data = await estimate({ ReferenceDate: day(-30), From: day(-30), To: day(-1) });
      const { order, account } = costBreakdown(data);
      const cost = orderCost(data);
      expect(cost.state).toBe('known');
      expect(order.map((l) => l.kind)).toEqual(['charged']);
      expect(order[0]!.value).toBe(cost.state === 'known' ? cost.eur : NaN);
      expect(order[0]!.disagree).toBeNull();
      expect(formatAmount(order[0]!)).toMatch(/ EUR$/);
      // Several fields name the charge (CurrentMonthCost, Costs.CurrentMonthOrderCostEstimate…): one line.
      expect(order[0]!.fields.length).toBeGreaterThan(1);
      expect(account).not.toBeNull();
      expect(account!.fields.map((f) => f.split('.').pop()!.toLowerCase())).toEqual(['currentmonthcosts']);
    });

    it('a recurring order: the charge, its historical part and the monthly cost, each once', async () => {
      const data = await estimate({ ReferenceDate: day(-20), From: day(-20), To: null });
      const { order, account } = costBreakdown(data);
      expect(order.map((l) => l.kind)).toEqual(['charged', 'historic', 'monthly']);
      expect(order.every((l) => l.value > 0 && l.disagree === null)).toBe(true);
      expect(new Set(order.map((l) => l.label)).size).toBe(order.length);
      expect(account?.kind).toBe('account');
      expect(order.some((l) => l.fields.some((f) => /^currentmonthcosts$/i.test(f)))).toBe(false);
    });
  });
}

function boxOf(ring: string): number {
  return billedArea(polygonalOf(`POLYGON(${ring})`)!).boxesKm2;
}

describe('cost breakdown by what the amounts are', () => {
  it('keeps a disagreement between fields that name the same amount, and leaves zeros out', () => {
    const b = costBreakdown({ currency: 'EUR', currentMonthCost: 10, breakdown: { currentMonthOrderCostEstimate: 12, currentMonthStorageCosts: 0, historicStorageCosts: 3 }, nextMonthCost: 0 });
    expect(b.order.map((l) => [l.kind, l.value])).toEqual([['charged', 10], ['storage', 3]]);
    expect(b.order[0]!.disagree).toEqual([{ field: 'currentMonthCost', value: 10 }, { field: 'breakdown.currentMonthOrderCostEstimate', value: 12 }]);
    expect(b.account).toBeNull();
  });
});
