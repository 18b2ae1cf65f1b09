import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, openDatabase } from '../../../main/shared/database';
import { monthOf } from '../../../main/spend';
import { WatchStore, type Watch, type WatchDate } from '../../../main/watches';
import { summarize } from '../../../main/watches/store';
import { WATCH_INPUT as INPUT } from './watch-input';

// Watches in swath.db: the old watches.json imported once, the summaries and pages as queries.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-watch-db-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2026-11-20T10:00:00Z');


const day = (d: string, state: WatchDate['state'], at: string, costEur: number | null = 1): WatchDate => ({
  date: d, state, ...(state === 'failed' ? { note: `refused ${d}` } : {}), libraryIds: state === 'downloaded' ? [`L-${d}`] : [], files: [], jobId: `j-${d}`, costEur, at,
});

/** A watch as an earlier version kept it in watches.json. */
function oldWatch(id: string, profileId: string, dates: WatchDate[], extra: Partial<Watch> = {}): Watch {
  const at = '2026-10-01T00:00:00.000Z';
  return {
    ...INPUT, id, profileId, name: `Watch ${id}`, state: 'active', notice: null, running: false, lastRunAt: null, lastResult: null,
    nextRunAt: at, failures: 0, dates, allowOverMonth: null, createdAt: at, updatedAt: at, ...extra,
  };
}

const count = (db: DatabaseSync, sql: string) => (db.prepare(sql).get() as { n: number }).n;

describe('watches in swath.db', () => {
  it('imports an old watches.json once, in order, keeps it as watches.json.imported-<ms>, and a second start does not import it again', async () => {
    const a = oldWatch('a', 'p1', [day('2026-11-03', 'downloaded', '2026-11-04T00:00:00.000Z'), day('2026-11-01', 'failed', '2026-11-02T00:00:00.000Z')], { running: true });
    const b = oldWatch('b', 'p2', []);
    const c = oldWatch('c', 'p1', [day('2026-10-30', 'skipped', '2026-10-31T00:00:00.000Z')]);
    const text = JSON.stringify({ version: 1, watches: [a, b, c] });
    writeFileSync(path.join(dir, 'watches.json'), text);
    const s = await WatchStore.open(dir, { now: () => T0 });
    expect(s.all().map((w) => w.id)).toEqual(['a', 'b', 'c']);
    expect(s.list('p1').map((w) => w.id)).toEqual(['a', 'c']);
    // The dates, oldest first; a run did not survive the restart.
    expect(s.get('a')).toEqual({ ...a, running: false, dates: [a.dates[1], a.dates[0]] });
    expect(readdirSync(dir)).not.toContain('watches.json');
    expect(readFileSync(path.join(dir, `watches.json.imported-${T0}`), 'utf8')).toBe(text);

    await s.delete('b');
    // The backup copied back (or a crash between the import's commit and the rename): not imported again.
    writeFileSync(path.join(dir, 'watches.json'), text);
    const again = await WatchStore.open(dir, { now: () => T0 + 1 });
    expect(again.all().map((w) => w.id)).toEqual(['a', 'c']);
    expect(again.get('a')!.dates).toHaveLength(2);
    expect(existsSync(path.join(dir, 'watches.json'))).toBe(false);
    expect(existsSync(path.join(dir, `watches.json.imported-${T0 + 1}`))).toBe(true);
  });

  it('sets a watches.json in an unknown format aside as .corrupt-<ms>, says so, and starts without it', async () => {
    const file = path.join(dir, 'watches.json');
    writeFileSync(file, JSON.stringify({ version: 2, watches: {} }));
    const warnings: string[] = [];
    const s = await WatchStore.open(dir, { now: () => T0, onWarning: (l) => warnings.push(l) });
    expect(s.all()).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('does not match the watches format');
    expect(warnings[0]).toContain(`moved to ${file}.corrupt-${T0}`);
    expect(readFileSync(`${file}.corrupt-${T0}`, 'utf8')).toContain('"version":2');
    // The app goes on: watches can be made, and a next start finds no file to import.
    await s.create('p1', INPUT);
    expect((await WatchStore.open(dir, { onWarning: (l) => warnings.push(l) })).all()).toHaveLength(1);
    expect(warnings).toHaveLength(1);
  });

  it('answers summaries from the tables as the scan of the whole watch does, through changes, profiles and a month boundary', async () => {
    const { db } = await openDatabase({ dir });
    let now = Date.parse('2026-11-30T23:59:59.000Z');
    const s = await WatchStore.open(dir, { db, now: () => now });
    const states: WatchDate['state'][] = ['downloaded', 'queued', 'skipped', 'failed'];
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const w = await s.create(i === 3 ? 'p2' : 'p1', { ...INPUT, name: `W${i}` });
      ids.push(w.id);
      await s.update(w.id, (x) => {
        for (let k = 0; k < 30 + i * 7; k++) {
          const d = new Date(Date.parse('2026-09-01T00:00:00Z') + k * 86_400_000).toISOString().slice(0, 10);
          // Downloaded on either side of the month's end, some without a cost.
          const at = ['2026-10-31T23:59:59.999Z', '2026-11-01T00:00:00.000Z', '2026-11-30T23:59:59.999Z', '2026-12-01T00:00:00.000Z'][Math.floor(k / 4) % 4]!;
          x.dates.push(day(d, states[(k + i) % 4]!, at, k % 5 === 0 ? null : 0.25 * (k % 3)));
        }
      });
    }
    const oracle = (id: string) => summarize(s.get(id)!, monthOf(now));
    const check = () => {
      expect(s.summaries('p1')).toEqual(ids.slice(0, 3).map(oracle));
      expect(s.summaries('p2')).toEqual([oracle(ids[3]!)]);
      for (const id of ids) expect(s.summary(id)).toEqual(oracle(id));
    };
    check();
    expect(s.summary(ids[0]!)!.monthSpentEur).toBeGreaterThan(0);
    // Settings changed: failed and skipped dates are dropped; one date changes state.
    const kept = s.get(ids[1]!)!.dates.filter((d) => d.state === 'downloaded' || d.state === 'queued');
    const expected = [{ ...kept[0]!, state: 'failed' as const, note: 'now failed' }, ...kept.slice(1)];
    await s.update(ids[1]!, (x) => {
      x.dates = x.dates.filter((d) => d.state === 'downloaded' || d.state === 'queued');
      x.dates[0] = { ...x.dates[0]!, state: 'failed', note: 'now failed' };
    });
    expect(s.get(ids[1]!)!.dates).toEqual(expected);
    expect(count(db, `SELECT COUNT(*) AS n FROM watch_dates WHERE watch_id = '${ids[1]}'`)).toBe(expected.length);
    check();
    // Into December: the month's spend is December's.
    now = Date.parse('2026-12-01T00:00:01.000Z');
    check();
    expect(s.summary(ids[0]!)!.monthSpentEur).toBeGreaterThan(0);
    // Deleting a watch deletes its dates.
    await s.delete(ids[2]!);
    expect(count(db, `SELECT COUNT(*) AS n FROM watch_dates WHERE watch_id = '${ids[2]}'`)).toBe(0);
    expect(s.summaries('p1').map((w) => w.id)).toEqual(ids.slice(0, 2));
    db.close();
  });

  it('keeps one date per day, the latest change winning, and pages them in day order', async () => {
    const s = await WatchStore.open(dir, { now: () => T0 });
    const { id } = await s.create('p1', INPUT);
    const saved = await s.update(id, (w) => {
      w.dates.push(day('2026-11-05', 'queued', '2026-11-05T00:00:00.000Z'), day('2026-11-01', 'downloaded', '2026-11-01T00:00:00.000Z'), day('2026-11-05', 'downloaded', '2026-11-06T00:00:00.000Z'));
    });
    expect(saved.dates.map((d) => [d.date, d.state])).toEqual([['2026-11-01', 'downloaded'], ['2026-11-05', 'downloaded']]);
    expect(s.get(id)!.dates).toEqual(saved.dates);
    expect(s.datesPage(id, 'p1', 1, 5)).toEqual({ total: 2, dates: [saved.dates[1]] });
  });

  it('lists the due watches (active, next run reached) without reading their dates', async () => {
    let now = T0;
    const s = await WatchStore.open(dir, { now: () => now });
    const a = await s.create('p1', INPUT);
    const b = await s.create('p2', INPUT);
    const c = await s.create('p1', INPUT);
    await s.update(b.id, (w) => Object.assign(w, { nextRunAt: new Date(T0 + 60_000).toISOString() }));
    await s.update(c.id, (w) => Object.assign(w, { state: 'paused', nextRunAt: null }));
    expect(s.due(T0)).toEqual([{ id: a.id, profileId: 'p1' }]);
    now = T0 + 60_000;
    expect(s.due(now)).toEqual([{ id: a.id, profileId: 'p1' }, { id: b.id, profileId: 'p2' }]);
  });

  it('brings a database of the previous schema (3 steps) up to date, keeping what it held', async () => {
    const old = await openDatabase({ dir, migrations: MIGRATIONS.slice(0, 3) });
    old.db.prepare("INSERT INTO meta (key, value) VALUES ('library.json', 'x')").run();
    old.db.close();
    const { db } = await openDatabase({ dir });
    expect(db.prepare("SELECT value FROM meta WHERE key = 'library.json'").get()).toEqual({ value: 'x' });
    const s = await WatchStore.open(dir, { db, now: () => T0 });
    const w = await s.create('p1', INPUT);
    expect(s.summaries('p1').map((x) => x.id)).toEqual([w.id]);
    db.close();
  });
});
