import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { AppError } from '../../common/errors.js';
import { parseIndexExpression } from '../analysis/expression.js';
import type { NotificationInput } from '../notifications/notifier';
import type { Emit } from '../platform/emit';
import type { ParcelsPort, PixelRule, StatisticsPort } from './ports';
import { MAX_LATEST_PARCELS, type LatestValue } from './stats/index.js';

/** A parcel set attached to a watch, as `fields:attach-watch` answers it. */
export interface FieldWatch {
  setId: string;
  watchId: string;
  index: string;
  rule: PixelRule;
  minValidShare: number;
  threshold: number;
  direction: 'drop' | 'rise';
  createdAt: string;
}

/** What the monitor needs from the app. */
export interface FieldMonitorDeps {
  /** The app's database (the `field_watches` tables; the watches' own `watches` and `watch_dates`, read only). */
  db: DatabaseSync;
  parcels: Pick<ParcelsPort, 'set' | 'parcels'>;
  statistics: StatisticsPort;
  notify: (n: NotificationInput) => boolean;
  emit: Emit;
  log?: (line: string) => void;
  now: () => number;
}

interface AttachmentRow {
  set_id: string; watch_id: string; expression: string; rule: string; min_valid_share: number;
  threshold: number; direction: string; baseline_done: number; created_at: string;
}

/** Field names in the notification's body, at most. */
const NAMED_FIELDS = 5;

/** A band or index as the analyst reads it: "NDVI" for ndvi / [B8_B4], else the expression. */
export function indexName(index: string): string {
  const spec = parseIndexExpression(index);
  if ('error' in spec) return index;
  return spec.label.startsWith('NDVI') ? 'NDVI' : spec.label;
}

/** "14 fields dropped more than 0.15 NDVI" (one field: "1 field rose …"). */
export function changeSentence(count: number, direction: 'drop' | 'rise', threshold: number, index: string): string {
  return `${count} field${count === 1 ? '' : 's'} ${direction === 'drop' ? 'dropped' : 'rose'} more than ${threshold} ${indexName(index)}`;
}

const toWatch = (r: AttachmentRow): FieldWatch => ({
  setId: r.set_id, watchId: r.watch_id, index: r.expression, rule: r.rule as PixelRule, minValidShare: r.min_valid_share,
  threshold: r.threshold, direction: r.direction as 'drop' | 'rise', createdAt: r.created_at,
});

/**
 * Field monitoring: a parcel set attached to a watch has the statistics of every date the watch
 * brings computed as it arrives (the statistics engine's run over that date's raster), and one
 * notification per new date names how many fields fell (or rose) more than the threshold since
 * their previous valid date. The dates the watch already had when attached are computed first, as
 * the baseline, without a notification. Each raster is computed once per attachment (recorded in
 * `field_watch_rasters`); work is queued one at a time, off the call that told of the change.
 */
export class FieldMonitor {
  private readonly sql: Record<'attach' | 'detach' | 'detachSet' | 'detachWatch' | 'one' | 'all' | 'ofSet' | 'ofWatch' | 'seen' | 'markSeen' | 'baseline' | 'watchDates' | 'watchName', StatementSync>;
  private chain: Promise<void> = Promise.resolve();
  private readonly pending = new Set<string>();
  private readonly controller = new AbortController();

  constructor(private readonly deps: FieldMonitorDeps) {
    const p = (q: string): StatementSync => deps.db.prepare(q);
    this.sql = {
      attach: p(`INSERT INTO field_watches (set_id, watch_id, expression, rule, min_valid_share, threshold, direction, baseline_done, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT (set_id, watch_id) DO UPDATE SET expression = excluded.expression, rule = excluded.rule,
        min_valid_share = excluded.min_valid_share, threshold = excluded.threshold, direction = excluded.direction, baseline_done = 0`),
      detach: p('DELETE FROM field_watches WHERE set_id = ? AND watch_id = ?'),
      detachSet: p('DELETE FROM field_watches WHERE set_id = ?'),
      detachWatch: p('DELETE FROM field_watches WHERE watch_id = ?'),
      one: p('SELECT * FROM field_watches WHERE set_id = ? AND watch_id = ?'),
      all: p('SELECT * FROM field_watches ORDER BY created_at, set_id, watch_id'),
      ofSet: p('SELECT * FROM field_watches WHERE set_id = ? ORDER BY created_at, watch_id'),
      ofWatch: p('SELECT * FROM field_watches WHERE watch_id = ? ORDER BY created_at, set_id'),
      seen: p('SELECT raster_id FROM field_watch_rasters WHERE set_id = ? AND watch_id = ?'),
      markSeen: p('INSERT OR IGNORE INTO field_watch_rasters (set_id, watch_id, raster_id, date) VALUES (?, ?, ?, ?)'),
      baseline: p('UPDATE field_watches SET baseline_done = 1 WHERE set_id = ? AND watch_id = ?'),
      // The watch's downloaded dates and the (first) library raster each gave, oldest first.
      watchDates: p("SELECT date, library_id FROM watch_dates WHERE watch_id = ? AND state = 'downloaded' AND library_id IS NOT NULL ORDER BY date"),
      watchName: p("SELECT json_extract(watch, '$.name') AS name FROM watches WHERE id = ?"),
    };
  }

  /** Attaches `setId` to `watchId` (or changes the attachment); the watch's dates so far are computed as the baseline. */
  attach(input: { setId: string; watchId: string; index: string; rule?: PixelRule; minValidShare?: number; threshold: number; direction?: 'drop' | 'rise' }): FieldWatch {
    if (!this.deps.parcels.set(input.setId)) throw new AppError('not-found', `setId: no parcel set ${input.setId}.`, { fields: { setId: ['No such parcel set.'] } });
    if (!this.sql.watchName.get(input.watchId)) throw new AppError('not-found', `watchId: no watch ${input.watchId}.`, { fields: { watchId: ['No such watch.'] } });
    const spec = parseIndexExpression(input.index);
    if ('error' in spec) throw new AppError('validation', `index: ${spec.error}`, { fields: { index: [spec.error] } });
    this.sql.attach.run(input.setId, input.watchId, input.index, input.rule ?? 'exact', input.minValidShare ?? 0.8, input.threshold, input.direction ?? 'drop', new Date(this.deps.now()).toISOString());
    this.check(input.watchId);
    return toWatch(this.sql.one.get(input.setId, input.watchId) as unknown as AttachmentRow);
  }

  detach(setId: string, watchId: string): boolean {
    return this.sql.detach.run(setId, watchId).changes > 0;
  }

  /** Detaches a set from every watch (the set is being deleted). */
  detachAll(setId: string): void {
    this.sql.detachSet.run(setId);
  }

  list(setId?: string): FieldWatch[] {
    const rows = (setId === undefined ? this.sql.all.all() : this.sql.ofSet.all(setId)) as unknown as AttachmentRow[];
    return rows.map(toWatch);
  }

  /** A watch changed (its `watch:changed` event): its attachments look for new dates; a deleted watch's are dropped. */
  watchChanged(change: { id: string; deleted?: boolean }): void {
    if (change.deleted) {
      this.sql.detachWatch.run(change.id);
      return;
    }
    this.check(change.id);
  }

  /** Queues a look at a watch's new dates (once, however often it is told before the look runs). */
  private check(watchId: string): void {
    if (this.pending.has(watchId) || this.controller.signal.aborted) return;
    if (!(this.sql.ofWatch.all(watchId) as unknown[]).length) return;
    this.pending.add(watchId);
    this.chain = this.chain.then(() => this.process(watchId)).catch((e: unknown) => {
      if (!this.controller.signal.aborted) this.deps.log?.(`fields monitor, watch ${watchId}: ${String(e)}`);
    });
  }

  /** Resolves once every look queued so far is done. */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Stops: a running computation is cancelled (its dates are looked at again at the next change). */
  async close(): Promise<void> {
    this.controller.abort();
    await this.chain.catch(() => undefined);
  }

  private async process(watchId: string): Promise<void> {
    this.pending.delete(watchId);
    const signal = this.controller.signal;
    const dates = this.sql.watchDates.all(watchId) as unknown as { date: string; library_id: string }[];
    for (const row of this.sql.ofWatch.all(watchId) as unknown as AttachmentRow[]) {
      const a = toWatch(row);
      if (!this.deps.parcels.set(a.setId)) continue;
      const seen = new Set((this.sql.seen.all(a.setId, a.watchId) as unknown as { raster_id: string }[]).map((r) => r.raster_id));
      const fresh = dates.filter((d) => !seen.has(d.library_id));
      const request = { setId: a.setId, index: a.index, rule: a.rule, minValidShare: a.minValidShare };
      if (!row.baseline_done) {
        // The dates the watch had when attached: computed together, no notification.
        if (fresh.length) await this.deps.statistics.run({ ...request, rasterIds: fresh.map((d) => d.library_id) }, { signal });
        for (const d of fresh) this.sql.markSeen.run(a.setId, a.watchId, d.library_id, d.date);
        this.sql.baseline.run(a.setId, a.watchId);
        if (fresh.length) this.deps.emit('fields:changed', { setId: a.setId });
        continue;
      }
      for (const d of fresh) {
        await this.deps.statistics.run({ ...request, rasterIds: [d.library_id] }, { signal });
        this.sql.markSeen.run(a.setId, a.watchId, d.library_id, d.date);
        this.deps.emit('fields:changed', { setId: a.setId });
        await this.notifyChanges(a, d.date, signal);
      }
    }
  }

  /** The one notification of a new date: how many fields changed past the threshold since their previous valid date. */
  private async notifyChanges(a: FieldWatch, date: string, signal: AbortSignal): Promise<void> {
    const set = this.deps.parcels.set(a.setId);
    const changed: LatestValue[] = [];
    for (let offset = 0; offset < (set?.count ?? 0); offset += MAX_LATEST_PARCELS) {
      const page = await this.deps.statistics.latest(a.setId, { index: a.index, rule: a.rule, date, offset, limit: MAX_LATEST_PARCELS }, signal);
      for (const l of page) if (l.date === date && l.change !== null && (a.direction === 'drop' ? l.change < -a.threshold : l.change > a.threshold)) changed.push(l);
    }
    if (!changed.length) return;
    const watch = (this.sql.watchName.get(a.watchId) as { name: string | null } | undefined)?.name ?? 'watch';
    const sentence = changeSentence(changed.length, a.direction, a.threshold, a.index);
    changed.sort((x, y) => (a.direction === 'drop' ? x.change! - y.change! : y.change! - x.change!));
    const named = changed.slice(0, NAMED_FIELDS).map((c) => {
      const p = this.deps.parcels.parcels(a.setId, { offset: c.parcelIndex, limit: 1 })[0];
      const label = p && p.index === c.parcelIndex ? (p.name ? `${p.name} (${p.id})` : p.id) : `#${c.parcelIndex + 1}`;
      return `${label} ${c.change! > 0 ? '+' : ''}${c.change!.toFixed(3)}`;
    });
    this.deps.notify({
      kind: 'fieldChange',
      title: `${set?.name ?? 'Parcels'}: ${sentence}`,
      body: `${sentence} on ${date} since their previous valid date (watch "${watch}"). ${changed.length === 1 ? 'The field' : 'Largest'}: ${named.join(', ')}${changed.length > NAMED_FIELDS ? `, and ${changed.length - NAMED_FIELDS} more` : ''}.`,
      target: { panel: 'fields', watchId: a.watchId },
    });
  }
}
