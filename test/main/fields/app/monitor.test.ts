import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Watch } from '../../../../main/watches';
import { settled, startTestApp, type TestApp } from '../../watches/app-helpers';

// Field monitoring end to end in main: the app core against its embedded simulator over loopback
// HTTP on a clock the test moves; a parcel set attached to a watch; the watch brings a new date.

const DAY = 86_400_000;
const AREA = 'POLYGON((13.85 52.33, 13.88 52.33, 13.88 52.35, 13.85 52.35, 13.85 52.33))';
/** Past this change of NDVI a field counts (the simulator's parcels move by 0.001 to 0.03 between the dates here). */
const THRESHOLD = 0.002;

/** Six square parcels of about 280 x 220 m inside the watch's area, as GeoJSON (EPSG:4326). */
function parcelsFile(dir: string): string {
  const features = Array.from({ length: 6 }, (_, i) => {
    const x = 13.852 + (i % 3) * 0.009;
    const y = 52.332 + Math.floor(i / 3) * 0.008;
    const ring = [[x, y], [x + 0.004, y], [x + 0.004, y + 0.002], [x, y + 0.002], [x, y]];
    return { type: 'Feature', properties: { code: `P${i + 1}`, label: `Field ${i + 1}` }, geometry: { type: 'Polygon', coordinates: [ring] } };
  });
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'farm.geojson');
  writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features }));
  return file;
}

interface Stat { parcelIndex: number; date: string; rasterId: string; mean: number | null; belowThreshold: boolean }

/** Per parcel, the change of the mean between its last two valid dates, from the stored results (not the latest query). */
async function changes(t: TestApp, setId: string): Promise<Map<number, number>> {
  const { results } = await t.call<{ results: Stat[] }>('fields:results', { setId, index: 'ndvi', limit: 10_000 });
  const out = new Map<number, number>();
  const byParcel = new Map<number, Stat[]>();
  for (const r of results) if (!r.belowThreshold && r.mean !== null) byParcel.set(r.parcelIndex, [...(byParcel.get(r.parcelIndex) ?? []), r]);
  for (const [p, rows] of byParcel) {
    rows.sort((a, b) => a.date.localeCompare(b.date));
    if (rows.length >= 2) out.set(p, rows.at(-1)!.mean! - rows.at(-2)!.mean!);
  }
  return out;
}

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

describe('field monitoring through a watch', () => {
  it('computes the dates a watch had as the baseline, then each new date, and notifies once how many fields dropped or rose', async () => {
    // Early summer, when the simulator's crops grow and are harvested: the index moves between dates.
    t = await startTestApp({ startAt: Date.parse('2026-06-20T12:00:00Z') });
    const o = t.demoOrder(true);
    const w0 = await t.call<Watch>('watches:create', {
      name: 'Farm watch', source: { kind: 'order', orderId: o.guid, recurring: true }, area: { Wkt: AREA }, model: o.model,
      constellations: o.constellations, from: o.from, to: o.to, capEur: null, everyHours: 6,
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16', Resolution: 80, PixelSelectionMode: 'intersect' },
    });
    const w1 = await settled(t, w0.id);
    const baseline = w1.dates.filter((d) => d.state === 'downloaded');
    expect(baseline.length).toBeGreaterThan(1);

    // The same parcels twice: one set watched for drops, one for rises (the simulator's dates go either way).
    const file = parcelsFile(path.join(t.dir, 'Downloads', 'parcels'));
    const sets: Record<'drop' | 'rise', string> = { drop: '', rise: '' };
    for (const direction of ['drop', 'rise'] as const) {
      const inspected = await t.call<{ fileId: string; layers: { name: string; count: number }[] }>('fields:inspect', { file });
      expect(inspected.layers[0]!.count).toBe(6);
      const { set } = await t.call<{ set: { id: string; count: number } }>('fields:import', { fileId: inspected.fileId, idColumn: 'code', nameColumn: 'label', name: `Farm ${direction}` });
      expect(set.count).toBe(6);
      sets[direction] = set.id;
      const attached = await t.call('fields:attach-watch', { setId: set.id, watchId: w0.id, index: 'ndvi', threshold: THRESHOLD, direction });
      expect(attached).toMatchObject({ setId: set.id, watchId: w0.id, index: 'ndvi', rule: 'exact', minValidShare: 0.8, threshold: THRESHOLD, direction });
    }

    // The baseline: every date the watch had, computed for each set, with no notification.
    for (const setId of Object.values(sets)) {
      await vi.waitFor(async () => {
        const { results } = await t!.call<{ results: Stat[] }>('fields:results', { setId, index: 'ndvi', limit: 10_000 });
        expect(results).toHaveLength(6 * baseline.length);
      }, { timeout: 60_000, interval: 100 });
    }
    expect(t.events.filter((e) => e.event === 'notification' && e.payload.target?.panel === 'fields')).toHaveLength(0);
    const before = t.events.length;

    // A week later the order has a new date: the watch downloads it, the monitor computes it.
    t.clock.now += 7 * DAY;
    await t.call('watches:run', { id: w0.id });
    const w2 = await settled(t, w0.id, w1.lastRunAt);
    const fresh = w2.dates.filter((d) => d.state === 'downloaded' && !baseline.some((b) => b.date === d.date));
    expect(fresh).toHaveLength(1);
    for (const setId of Object.values(sets)) {
      await vi.waitFor(() => expect(t!.events.slice(before).some((e) => e.event === 'fields:changed' && e.payload.setId === setId)).toBe(true), { timeout: 60_000, interval: 50 });
      const { results } = await t.call<{ results: Stat[] }>('fields:results', { setId, index: 'ndvi', date: fresh[0]!.date, limit: 100 });
      expect(results).toHaveLength(6);
      expect(new Set(results.map((r) => r.rasterId))).toEqual(new Set(fresh[0]!.libraryIds));
    }

    const notes = t.events.slice(before).filter((e) => e.event === 'notification' && e.payload.target?.panel === 'fields');
    let notified = 0;
    for (const direction of ['drop', 'rise'] as const) {
      const moved = [...(await changes(t, sets[direction])).values()].filter((c) => (direction === 'drop' ? c < -THRESHOLD : c > THRESHOLD)).length;
      const mine = notes.filter((n) => n.payload.title.startsWith(`Farm ${direction}:`));
      if (moved === 0) {
        expect(mine).toHaveLength(0);
        continue;
      }
      notified++;
      // One notification for the date, naming how many fields moved past the threshold.
      expect(mine).toHaveLength(1);
      const sentence = `${moved} field${moved === 1 ? '' : 's'} ${direction === 'drop' ? 'dropped' : 'rose'} more than ${THRESHOLD} NDVI`;
      expect(mine[0]!.payload).toMatchObject({ kind: 'fieldChange', title: `Farm ${direction}: ${sentence}`, target: { panel: 'fields', watchId: w0.id } });
      expect(mine[0]!.payload.body).toContain(`${sentence} on ${fresh[0]!.date} since their previous valid date (watch "Farm watch")`);
      expect(mine[0]!.payload.body).toMatch(/Field \d \(P\d\)/);
    }
    // On these dates some fields fell and others rose past the threshold: both sets were notified.
    expect(notified).toBe(2);

    // A run with nothing new computes and notifies nothing more.
    const quiet = t.events.length;
    await t.call('watches:run', { id: w0.id });
    await settled(t, w0.id, w2.lastRunAt);
    expect(t.events.slice(quiet).filter((e) => e.event === 'notification' && e.payload.target?.panel === 'fields')).toHaveLength(0);

    // Detached: listed no more.
    expect(await t.call('fields:detach-watch', { setId: sets.drop, watchId: w0.id })).toEqual({ detached: true });
    expect((await t.call<{ watches: unknown[] }>('fields:watches', {})).watches).toHaveLength(1);
  });

  it('refuses an attachment to a set or watch that does not exist, or an index outside the band grammar, naming the field', async () => {
    t = await startTestApp();
    const file = parcelsFile(path.join(t.dir, 'Downloads'));
    const inspected = await t.call<{ fileId: string }>('fields:inspect', { file });
    const { set } = await t.call<{ set: { id: string } }>('fields:import', { fileId: inspected.fileId, idColumn: 'code' });
    await expect(t.call('fields:attach-watch', { setId: 'nope', watchId: 'x', index: 'ndvi', threshold: 0.1 })).rejects.toMatchObject({ fields: { setId: expect.any(Array) } });
    await expect(t.call('fields:attach-watch', { setId: set.id, watchId: 'nope', index: 'ndvi', threshold: 0.1 })).rejects.toMatchObject({ fields: { watchId: expect.any(Array) } });
    // A file outside the download folder is refused: the window names only files main may read.
    await expect(t.call('fields:inspect', { file: '/etc/passwd' })).rejects.toMatchObject({ fields: { file: expect.any(Array) } });
    // Nor through a link inside it, or a relative path.
    const outside = parcelsFile(path.join(t.dir, 'elsewhere'));
    symlinkSync(outside, path.join(t.dir, 'Downloads', 'link.geojson'));
    await expect(t.call('fields:inspect', { file: path.join(t.dir, 'Downloads', 'link.geojson') })).rejects.toMatchObject({ fields: { file: [expect.stringContaining('inside the download folder')] } });
    await expect(t.call('fields:inspect', { file: 'farm.geojson' })).rejects.toMatchObject({ fields: { file: ['The path must be absolute.'] } });
    await expect(t.call('fields:import', { fileId: 'forged', idColumn: 'code' })).rejects.toMatchObject({ fields: { fileId: expect.any(Array) } });
  });
});
