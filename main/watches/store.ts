import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { WATCH_LATEST_DATES, watchChip, watchSchema, type watchInputSchema, type watchSummarySchema } from '../../preload/contract';
import { AppError } from '../../common/errors.js';
import { JsonStore, readJsonFile } from '../shared/atomic-json';
import { monthOf } from '../spend';

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

const fileSchema = z.object({ version: z.literal(1), watches: z.array(z.unknown()) });

/**
 * The watches of every profile, in userData/watches.json, written atomically (temp file, fsync,
 * rename): a crash leaves the old or the new list, never a torn one. A record that no longer
 * parses is set aside with a warning instead of failing the whole list.
 */
export class WatchStore {
  private readonly watches = new Map<string, Watch>();
  private readonly store: JsonStore;

  private constructor(readonly file: string, private readonly now: () => number) {
    this.store = new JsonStore(file, () => ({ version: 1, watches: [...this.watches.values()] }));
  }

  /** Loads the watches of `dir`; an unreadable file starts an empty list (reported through `onWarning`). */
  static async open(dir: string, opts: { now?: () => number; onWarning?: (line: string) => void } = {}): Promise<WatchStore> {
    const s = new WatchStore(path.join(dir, 'watches.json'), opts.now ?? Date.now);
    let raw: unknown = null;
    try {
      raw = await readJsonFile(s.file);
    } catch (e) {
      opts.onWarning?.(`watches: ${(e as Error).message}; starting with no watches`);
    }
    const parsed = fileSchema.safeParse(raw);
    if (raw !== null && !parsed.success) opts.onWarning?.(`watches: ${s.file} has an unknown format; starting with no watches`);
    for (const item of parsed.success ? parsed.data.watches : []) {
      const w = watchSchema.safeParse(item);
      if (!w.success) {
        opts.onWarning?.(`watches: a record was unreadable and was left out (${w.error.issues[0]?.message ?? 'invalid'})`);
        continue;
      }
      // A run cannot survive a restart: whatever was running is not any more.
      s.watches.set(w.data.id, { ...w.data, running: false });
    }
    return s;
  }

  /** The watches of one profile, oldest first. */
  list(profileId: string): Watch[] {
    return [...this.watches.values()].filter((w) => w.profileId === profileId).map((w) => structuredClone(w));
  }

  /** Summaries of the watches of one profile, oldest first. */
  summaries(profileId: string): WatchSummary[] {
    const month = monthOf(this.now());
    return [...this.watches.values()].filter((w) => w.profileId === profileId).map((w) => summarize(w, month));
  }

  /** The summary of one watch, or undefined. */
  summary(id: string): WatchSummary | undefined {
    const w = this.watches.get(id);
    return w ? summarize(w, monthOf(this.now())) : undefined;
  }

  /** `limit` of a watch's dates from `offset` (oldest first) and how many it holds; not found unless it is `profileId`'s. */
  datesPage(id: string, profileId: string, offset: number, limit: number): { total: number; dates: WatchDate[] } {
    const w = this.watches.get(id);
    if (!w || w.profileId !== profileId) throw new AppError('not-found', `No watch ${id} in this profile: it may have been deleted.`);
    return { total: w.dates.length, dates: structuredClone(w.dates.slice(offset, offset + limit)) };
  }

  /** Every watch. */
  all(): Watch[] {
    return [...this.watches.values()].map((w) => structuredClone(w));
  }

  /** One watch, or undefined. */
  get(id: string): Watch | undefined {
    const w = this.watches.get(id);
    return w ? structuredClone(w) : undefined;
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
    this.watches.set(w.id, w);
    await this.store.save();
    return structuredClone(w);
  }

  /** Applies a change to a watch and saves; returns the new watch. */
  async update(id: string, change: (w: Watch) => void): Promise<Watch> {
    const w = this.need(id);
    change(w);
    w.updatedAt = new Date(this.now()).toISOString();
    const checked = watchSchema.parse(w);
    this.watches.set(id, checked);
    await this.store.save();
    return structuredClone(checked);
  }

  /** Removes a watch (its files are the caller's business). */
  async delete(id: string): Promise<Watch> {
    const w = this.need(id);
    this.watches.delete(id);
    await this.store.save();
    return w;
  }

  /** Resolves once every change so far is on disk. */
  flush(): Promise<void> {
    return this.store.save();
  }
}
