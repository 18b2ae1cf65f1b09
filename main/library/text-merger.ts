import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** Pages of merged index one step writes at most (a few milliseconds of main's thread). */
export const MERGE_PAGES = 64;

/** How long after the first change the merging starts (a burst of adds makes one round). */
export const MERGE_DELAY_MS = 500;

/**
 * Merges the library's full-text index (FTS5) between commits instead of inside them. FTS5 merges a
 * level's b-trees inside whichever write fills it (its `automerge`): at 100,000 rasters such a
 * merge took 12 ms of one add's transaction, at add counts fixed by the index's layout. Here that
 * option is off and SQLite's own `merge` command runs in steps of {@link MERGE_PAGES} pages, each
 * its own transaction with a turn of the event loop between, starting {@link MERGE_DELAY_MS} after a
 * change and going on while a step finds work (a step that changes fewer than 2 rows found none, as
 * FTS5 documents). FTS5's `crisismerge` stays on: should merging fall behind, the index still merges
 * inside a write rather than grow without bound.
 */
export class TextMerger {
  private readonly merge: StatementSync;
  private readonly changes: StatementSync;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly db: DatabaseSync,
    private readonly table: string,
    private readonly opts: { delayMs?: number; onWarning?: (message: string) => void } = {},
  ) {
    if (!/^\w+$/.test(table)) throw new Error(`Not a table name: ${table}`);
    try {
      db.exec(`INSERT INTO ${table}(${table}, rank) VALUES('automerge', 0)`);
    } catch (e) {
      // FTS5 keeps merging inside the writes then: slower adds now and then, nothing lost.
      opts.onWarning?.(`Could not move the library's text index merges out of its writes: ${(e as Error).message}`);
    }
    this.merge = db.prepare(`INSERT INTO ${table}(${table}, rank) VALUES('merge', ?)`);
    this.changes = db.prepare('SELECT total_changes() AS n');
  }

  /** Whether a merge is due or running. */
  get busy(): boolean {
    return this.timer !== null || this.running !== null;
  }

  /** After a commit that changed the index: merging starts a moment later, unless it is already due or running. */
  nudge(): void {
    if (this.stopped || this.timer || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.run().finally(() => (this.running = null));
    }, this.opts.delayMs ?? MERGE_DELAY_MS);
    this.timer.unref();
  }

  /** Merges now, step by step, until a step finds nothing to merge (what the timer runs; tests await it). */
  async settle(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.running;
    this.running = this.run().finally(() => (this.running = null));
    await this.running;
  }

  /** No more merging (the connection is about to close); a step never runs after this returns. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One step: true when it merged something. */
  step(): boolean {
    const before = (this.changes.get() as { n: number }).n;
    this.merge.run(MERGE_PAGES);
    return (this.changes.get() as { n: number }).n - before >= 2;
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped && this.db.isOpen && this.step()) await new Promise((resolve) => setImmediate(resolve));
    } catch (e) {
      // The index stays correct unmerged (and crisismerge still bounds it); the next change tries again.
      this.opts.onWarning?.(`Could not merge the library's text index: ${(e as Error).message}`);
    }
  }
}
