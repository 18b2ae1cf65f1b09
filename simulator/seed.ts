import { addDays, isoDate } from './dates.js';
import { parseAoi } from './geo/aoi.js';
import { createOrder, resolveOrder } from './orders.js';
import { OrderEstimateBody } from './schemas.js';
import type { Account, SimState } from './state.js';

const DAY = 86_400_000;

/** The demo AOIs, documented in docs/analyst-guide.md so a first launch has imagery to find. */
export const DEMO_AREAS = {
  historical: 'POLYGON((13.25 52.40, 13.60 52.40, 13.60 52.60, 13.25 52.60, 13.25 52.40))',
  recurring: 'POLYGON((13.80 52.30, 14.00 52.30, 14.00 52.40, 13.80 52.40, 13.80 52.30))',
};

/**
 * Gives the funded demo key a finished historical order and a running recurring one,
 * so search, check, estimate and download work on a first launch.
 */
export function seedDemoOrders(state: SimState, acc: Account): void {
  if (!acc.profile.seedDemoOrder) return;
  const now = state.now();
  const today = isoDate(now);
  const specs = [
    { wkt: DEMO_AREAS.historical, from: addDays(today, -120), to: addDays(today, -3), freq: 5, model: 'Stratus2', cons: ['Sentinel1', 'Sentinel2'], ageDays: 121 },
    { wkt: DEMO_AREAS.recurring, from: addDays(today, -60), to: null, freq: 7, model: 'Stratus2', cons: ['Sentinel1', 'Sentinel2', 'Landsat89'], ageDays: 61 },
  ];
  for (const s of specs) {
    if (!parseAoi({ Wkt: s.wkt }, { required: true }).ok) throw new Error('demo AOI is invalid');
    const body = OrderEstimateBody.parse({
      Wkt: s.wkt, Model: s.model, SatelliteConstellations: s.cons, ImageFrequency: s.freq,
      ReferenceDate: s.from, From: s.from, To: s.to, StorageMonths: 6, ApiRequests: 10,
    });
    const order = createOrder(state, acc, resolveOrder(body), false, { instant: true });
    // Backdate so the order and its charge sit in the months they would have happened in.
    order.createdAt = now - s.ageDays * DAY;
    const entry = acc.ledger.find((e) => e.reference === order.guid);
    if (entry) entry.at = order.createdAt;
  }
  const opening = acc.ledger.find((e) => e.kind === 'TopUp');
  if (opening) opening.at = now - 150 * DAY;
  acc.ledger.sort((a, b) => a.at - b.at);
}
