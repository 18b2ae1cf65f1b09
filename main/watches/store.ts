import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { z } from 'zod';
import { WATCH_LATEST_DATES, watchChip, watchDateSchema, watchSchema, type watchInputSchema, type watchSummarySchema } from '../../preload/contract';
import { AppError } from '../../common/errors.js';
import { importJsonOnce, inTransaction, openDatabase } from '../shared/database';
import { monthOf, pastPrefix } from '../spend';

/** A watch as main keeps it (see preload/contract/watches.ts). */
export type Watch = z.infer<typeof watchSchema>;
/** What the analyst gives for a watch. */
export type WatchInput = z.infer<typeof watchInputSchema>;
/** One date of a watch. */
export type WatchDate = Watch['dates'][number];
/** A watch as the window lists it: its dates counted, only the latest ones carried. */
export type WatchSummary = z.infer<typeof watchSummarySchema>;

/** The summary of a watch in `month` (YYYY-MM, for its month's spend); copies only what it carries. */
export function summarize(w: Watch, month: string): WatchSummary {
  const { dates, ...fields } = w;
  const counts = { downloaded: 0, queued: 0, skipped: 0, failed: 0 };
  let monthSpentEur = 0;
  for (const d of dates) {
    counts[d.state]++;
    if (d.state === 'downloaded' && d.at.startsWith(month)) monthSpentEur += d.costEur ?? 0;
  }
  return { ...structuredClone(fields), dateCount: dates.length, counts, monthSpentEur, latest: dates.slice(-WATCH_LATEST_DATES).map(watchChip) };
}

/** Name of the watch file of earlier versions in the userData directory: imported once into swath.db, then kept as `watches.json.imported-<ms>`. */
export const WATCHES_FILE = 'watches.json';

const fileSchema = z.object({ version: z.literal(1), watches: z.array(z.unknown()) });

/** A watch without its dates, as its row keeps it. */
type WatchFields = Omit<Watch, 'dates'>;

/** The states of a watch's date. */
const DATE_STATES = watchDateSchema.shape.state.options;

/** A row of {@link SUMMARY}: the watch's JSON, its dates counted by state, the month's spend and the latest chips. */
type SummaryRow = Record<WatchDate['state'], number> & {
  watch: string;
  spent: number;
  /** JSON: `[date, state, note, libraryId]` of its latest dates, oldest first. */
  latest: string;
};

/** A watch's dates by day, the last of a day winning, oldest first: a watch holds one date per day. */
function byDay(dates: readonly WatchDate[]): WatchDate[] {
  const m = new Map<string, WatchDate>();
  for (const d of dates) m.set(d.date, d);
  return [...m.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/**
 * A watch's row with its summary, one statement: its dates counted by state (a range of the covering
 * index each: faster than one GROUP BY) and the month's spend
 * (downloaded dates whose time is in [:month, :past), `at` starting with the month) from the covering
 * index, and the chips of its latest dates as one JSON array from their columns: the dates from the
 * 24th newest on, read along the key (watch, day), so oldest first (twice as fast as ordering the newest 24).
 */
const SUMMARY = `SELECT w.watch, ${DATE_STATES.map((st) => `(SELECT COUNT(*) FROM watch_dates WHERE watch_id = w.id AND state = '${st}') AS ${st}`).join(', ')},
  (SELECT TOTAL(cost_eur) FROM watch_dates WHERE watch_id = w.id AND state = 'downloaded' AND at >= :month AND at < :past) AS spent,
  (SELECT json_group_array(json_array(date, state, note, library_id)) FROM watch_dates WHERE watch_id = w.id AND date >= COALESCE(
    (SELECT date FROM watch_dates WHERE watch_id = w.id ORDER BY date DESC LIMIT 1 OFFSET ${WATCH_LATEST_DATES - 1}), '')) AS latest
  FROM watches w`;

/** Options of {@link WatchStore.open}. */
export interface WatchStoreOptions {
  now?: () => number;
  onWarning?: (line: string) => void;
  /** The app's database (else swath.db in the directory is opened, and closed by {@link WatchStore.close}). */
  db?: DatabaseSync;
}

/**
 * The watches of every profile, in the `watches` and `watch_dates` tables of swath.db (see
 * main/shared/database.ts): a watch's fields as one row, each of its dates as a row of its own, so
 * the Watches panel's summaries (counts by state, this month's spend, the latest dates) and the
 * paged dates are queries, and a change writes only the rows it changed, in one small transaction.
 * An old `watches.json` is imported once; a record in it that no longer parses is left out with a
 * warning instead of failing the whole list.
 */
export class WatchStore {
  private readonly sql: Record<
    'one' | 'ofProfile' | 'every' | 'due' | 'insert' | 'update' | 'remove' | 'dates' | 'page' | 'count' | 'summariesOf' | 'summaryOf' | 'putDate' | 'dropDate' | 'dropDates' | 'stopRuns',
    StatementSync
  >;

  private constructor(readonly file: string, private readonly db: DatabaseSync, private readonly ownsDb: boolean, private readonly now: () => number) {
    const p = (q: string): StatementSync => db.prepare(q);
    this.sql = {
      one: p('SELECT watch FROM watches WHERE id = ?'),
      ofProfile: p('SELECT id, watch FROM watches WHERE profile_id = ? ORDER BY rid'),
      every: p('SELECT watch FROM watches ORDER BY rid'),
      due: p("SELECT id, profile_id, next_run_at FROM watches WHERE state = 'active' AND next_run_at IS NOT NULL ORDER BY rid"),
      insert: p('INSERT INTO watches (id, profile_id, state, next_run_at, watch) VALUES (?, ?, ?, ?, ?)'),
      update: p('UPDATE watches SET profile_id = ?, state = ?, next_run_at = ?, watch = ? WHERE id = ?'),
      remove: p('DELETE FROM watches WHERE id = ?'),
      dates: p('SELECT item FROM watch_dates WHERE watch_id = ? ORDER BY date'),
      page: p('SELECT item FROM watch_dates WHERE watch_id = ? ORDER BY date LIMIT ? OFFSET ?'),
      count: p('SELECT COUNT(*) AS n FROM watch_dates WHERE watch_id = ?'),
      summariesOf: p(`${SUMMARY} WHERE w.profile_id = :profile ORDER BY w.rid`),
      summaryOf: p(`${SUMMARY} WHERE w.id = :id`),
      putDate: p(`INSERT INTO watch_dates (watch_id, date, state, at, cost_eur, note, library_id, item) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (watch_id, date) DO UPDATE SET state = excluded.state, at = excluded.at, cost_eur = excluded.cost_eur,
          note = excluded.note, library_id = excluded.library_id, item = excluded.item`),
      dropDate: p('DELETE FROM watch_dates WHERE watch_id = ? AND date = ?'),
      dropDates: p('DELETE FROM watch_dates WHERE watch_id = ?'),
      stopRuns: p("UPDATE watches SET watch = json_set(watch, '$.running', json('false')) WHERE json_extract(watch, '$.running') = 1"),
    };
  }

  /**
   * Opens the watches in `opts.db` (or swath.db in `dir`). An old `watches.json` there is imported
   * once, in one transaction, then kept as `watches.json.imported-<ms>`; an unreadable one is
   * renamed `.corrupt-<ms>` with a warning and the watches start without it.
   */
  static async open(dir: string, opts: WatchStoreOptions = {}): Promise<WatchStore> {
    const now = opts.now ?? Date.now;
    const db = opts.db ?? (await openDatabase({ dir, onWarning: opts.onWarning, now })).db;
    const s = new WatchStore(path.join(dir, WATCHES_FILE), db, !opts.db, now);
    await importJsonOnce(db, {
      file: s.file, subject: 'the watches', format: 'watches', schema: fileSchema, now, warn: opts.onWarning,
      write: ({ watches }) => {
        for (const item of watches) {
          const w = watchSchema.safeParse(item);
          if (!w.success) {
            opts.onWarning?.(`watches: a record of ${s.file} was unreadable and was left out (${w.error.issues[0]?.message ?? 'invalid'}); the file is kept`);
            continue;
          }
          if (s.sql.one.get(w.data.id)) continue;
          s.insert(w.data);
        }
      },
    });
    // A run cannot survive a restart: whatever was running is not any more.
    s.sql.stopRuns.run();
    return s;
  }

  private fields(json: string): WatchFields {
    return JSON.parse(json) as WatchFields;
  }

  private datesOf(id: string): WatchDate[] {
    return (this.sql.dates.all(id) as { item: string }[]).map((r) => JSON.parse(r.item) as WatchDate);
  }

  private withDates(json: string): Watch {
    const f = this.fields(json);
    return { ...f, dates: this.datesOf(f.id) };
  }

  private putDate(id: string, d: WatchDate): void {
    this.sql.putDate.run(id, d.date, d.state, d.at, d.costEur, d.note ?? null, d.libraryIds[0] ?? null, JSON.stringify(d));
  }

  /** Writes a new watch and its dates (the caller's transaction). */
  private insert(w: Watch): void {
    const { dates, ...f } = w;
    this.sql.insert.run(f.id, f.profileId, f.state, f.nextRunAt, JSON.stringify(f));
    for (const d of byDay(dates)) this.putDate(f.id, d);
  }

  /** A summary from its row of {@link SUMMARY}. */
  private toSummary(r: SummaryRow): WatchSummary {
    const counts = { downloaded: r.downloaded, queued: r.queued, skipped: r.skipped, failed: r.failed };
    const latest = (JSON.parse(r.latest) as [string, WatchDate['state'], string | null, string | null][])
      .map(([date, state, note, libraryId]) => ({ date, state, ...(note === null ? {} : { note }), libraryId }));
    return { ...this.fields(r.watch), dateCount: counts.downloaded + counts.queued + counts.skipped + counts.failed, counts, monthSpentEur: r.spent, latest };
  }

  private monthRange(): { month: string; past: string } {
    const month = monthOf(this.now());
    return { month, past: pastPrefix(month) };
  }

  /** The watches of one profile, oldest first. */
  list(profileId: string): Watch[] {
    return (this.sql.ofProfile.all(profileId) as { watch: string }[]).map((r) => this.withDates(r.watch));
  }

  /** Summaries of the watches of one profile, oldest first. */
  summaries(profileId: string): WatchSummary[] {
    return (this.sql.summariesOf.all({ profile: profileId, ...this.monthRange() }) as unknown as SummaryRow[]).map((r) => this.toSummary(r));
  }

  /** The summary of one watch, or undefined. */
  summary(id: string): WatchSummary | undefined {
    const r = this.sql.summaryOf.get({ id, ...this.monthRange() }) as SummaryRow | undefined;
    return r ? this.toSummary(r) : undefined;
  }

  /** `limit` of a watch's dates from `offset` (oldest first) and how many it holds; not found unless it is `profileId`'s. */
  datesPage(id: string, profileId: string, offset: number, limit: number): { total: number; dates: WatchDate[] } {
    const r = this.sql.one.get(id) as { watch: string } | undefined;
    if (!r || this.fields(r.watch).profileId !== profileId) throw new AppError('not-found', `No watch ${id} in this profile: it may have been deleted.`);
    const { n } = this.sql.count.get(id) as { n: number };
    return { total: n, dates: (this.sql.page.all(id, limit, offset) as { item: string }[]).map((x) => JSON.parse(x.item) as WatchDate) };
  }

  /** The active watches whose next run is at or before `now` (ms), oldest first: id and profile only, no dates read. */
  due(now: number): { id: string; profileId: string }[] {
    return (this.sql.due.all() as { id: string; profile_id: string; next_run_at: string }[])
      .filter((r) => Date.parse(r.next_run_at) <= now)
      .map((r) => ({ id: r.id, profileId: r.profile_id }));
  }

  /** Every watch. */
  all(): Watch[] {
    return (this.sql.every.all() as { watch: string }[]).map((r) => this.withDates(r.watch));
  }

  /** One watch, or undefined. */
  get(id: string): Watch | undefined {
    const r = this.sql.one.get(id) as { watch: string } | undefined;
    return r ? this.withDates(r.watch) : undefined;
  }

  /** The watch, or a not-found error. */
  need(id: string): Watch {
    const w = this.get(id);
    if (!w) throw new AppError('not-found', `No watch ${id}: it may have been deleted.`);
    return w;
  }

  /** Creates a watch for a profile; it is due at once. */
  async create(profileId: string, input: WatchInput): Promise<Watch> {
    const at = new Date(this.now()).toISOString();
    const w: Watch = {
      ...input, id: randomUUID(), profileId, state: 'active', notice: null, running: false, lastRunAt: null, lastResult: null,
      nextRunAt: at, failures: 0, dates: [], allowOverMonth: null, createdAt: at, updatedAt: at,
    };
    this.insert(w);
    return structuredClone(w);
  }

  /**
   * Applies a change to a watch and saves it in one transaction: its row, and only the dates the
   * change added, changed or removed. Returns the new watch (one date per day, oldest first).
   */
  async update(id: string, change: (w: Watch) => void): Promise<Watch> {
    return inTransaction(this.db, () => {
      const w = this.need(id);
      const before = new Map(w.dates.map((d) => [d.date, JSON.stringify(d)]));
      change(w);
      w.updatedAt = new Date(this.now()).toISOString();
      const { dates, ...f } = watchSchema.parse(w);
      const after = byDay(dates);
      this.sql.update.run(f.profileId, f.state, f.nextRunAt, JSON.stringify(f), id);
      for (const d of after) {
        if (before.get(d.date) !== JSON.stringify(d)) this.putDate(id, d);
        before.delete(d.date);
      }
      for (const day of before.keys()) this.sql.dropDate.run(id, day);
      return { ...f, dates: after };
    });
  }

  /** Removes a watch and its dates (its files are the caller's business). */
  async delete(id: string): Promise<Watch> {
    return inTransaction(this.db, () => {
      const w = this.need(id);
      this.sql.dropDates.run(id);
      this.sql.remove.run(id);
      return w;
    });
  }

  /** Resolves once every change so far is on disk: each was committed when it returned. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** Closes the database when this store opened it itself. */
  close(): void {
    if (this.ownsDb && this.db.isOpen) this.db.close();
  }
}
