/**
 * A year of watches for three analysts of one organisation on the same area: each app core has its
 * own user data, keychain and service account; they share one team catalog (a real PostgreSQL/PostGIS
 * cluster) and one raster share. Whoever asks first buys a date; the others wait for it while it is
 * being bought and then take it from the share. At the end every analyst holds every date, each
 * date was bought exactly once, and what the team spent is what the union of the dates cost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Watch } from '../../../main/watches';
import { postgresAvailable } from '../../support/postgres';
import { startTeam, type TestTeam } from '../../support/team';
import { settled, startTestApp, type TestApp } from '../watches/app-helpers';

const AREA = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const DAY = 86_400_000;
const ANALYSTS = ['ana', 'ben', 'cyd'];

describe.skipIf(!postgresAvailable() && !process.env.CI)('a year of watches for three analysts on one team catalog', () => {
  let team: TestTeam;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    team = await startTeam(ANALYSTS);
    for (const role of ANALYSTS) {
      const t = await startTestApp({ distribution: { policy: team.policy } });
      apps.push(t);
      // Every download is charged (the demo orders' included downloads are used up).
      for (const o of t.account().orders) o.downloadsUsed = 1000;
      await t.call('team:set-credentials', { credentials: { role, password: `${role}-password` } });
    }
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
    await team?.close();
  });

  it('ends with every date in every library, 0 duplicate purchases, and the team paying for the union of the dates once', async () => {
    const today = new Date(apps[0]!.clock.now).toISOString().slice(0, 10);
    const from = new Date(apps[0]!.clock.now - 365 * DAY).toISOString().slice(0, 10);
    const watch = {
      name: 'Berlin centre, a year',
      source: { kind: 'aoi' as const, orderId: null, recurring: null },
      area: { Wkt: AREA },
      model: 'Stratus2',
      constellations: ['Sentinel1', 'Sentinel2'],
      from,
      to: today,
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16' as const, Resolution: 80, PixelSelectionMode: 'intersect' as const },
      capEur: null,
      everyHours: 24,
    };
    // All three at once: their first runs race for the same dates.
    const created = await Promise.all(apps.map((t) => t.call<Watch>('watches:create', watch)));
    let watches = await Promise.all(apps.map((t, i) => settled(t, created[i]!.id)));
    const dates = new Set(watches.flatMap((w) => w.dates.map((d) => d.date)));
    expect(dates.size).toBeGreaterThan(10);
    // Dates a teammate was buying wait for the next run; a few rounds of "Run now" finish them (bounded).
    for (let round = 0; round < 6 && watches.some((w) => w.dates.filter((d) => d.state === 'downloaded').length < dates.size); round++) {
      watches = await Promise.all(apps.map(async (t, i) => {
        const before = watches[i]!;
        await t.call('watches:run', { id: before.id });
        return settled(t, before.id, before.lastRunAt);
      }));
    }
    for (const w of watches) {
      const seen = `${w.lastResult} ${w.notice ?? ''} ${JSON.stringify(w.dates.filter((d) => d.state !== 'downloaded'))}`;
      expect(w.state, seen).toBe('active');
      expect(w.dates.map((d) => d.date).sort(), seen).toEqual([...dates].sort());
      expect(w.dates.every((d) => d.state === 'downloaded'), seen).toBe(true);
    }

    // Each date bought once across the three service accounts.
    const charged = apps.flatMap((t) => t.account().ledger.filter((e) => e.kind === 'Download'));
    expect(charged.map((e) => e.description).sort(), 'one purchase per date').toHaveLength(dates.size);
    const boughtDates = watches.flatMap((w) => w.dates.filter((d) => (d.costEur ?? 0) > 0).map((d) => d.date));
    expect(new Set(boughtDates).size).toBe(boughtDates.length);
    expect(new Set(boughtDates)).toEqual(dates);
    // What the team spent is what the union of the dates cost, as the services billed it.
    const billed = -charged.reduce((n, e) => n + e.amount, 0);
    const recorded = watches.flatMap((w) => w.dates).reduce((n, d) => n + (d.costEur ?? 0), 0);
    expect(recorded).toBeCloseTo(billed, 2);
    console.log(`[team year] ${dates.size} dates, ${charged.length} purchases for 3 analysts, ${billed.toFixed(2)} EUR`);

    // The catalog holds each raster once.
    const admin = team.admin();
    const page = await admin.list({ limit: 500 });
    await admin.close();
    expect(page.rasters).toHaveLength(dates.size);
  });
});
