import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** Pages of merged index one step writes at most (a few milliseconds of main's thread). */
export const MERGE_PAGES = 16;

/** How long after the last change the merging starts (a burst of adds makes one round, after it). */
export const MERGE_DELAY_MS = 500;

/**
 * Merges the library's full-text index (FTS5) between commits instead of inside them. FTS5 merges a
 * level's b-trees inside whichever write fills it (its `automerge`): at 100,000 rasters such a
 * merge costs milliseconds of one add's transaction, at add counts fixed by the index's layout. Here that
 * option is off and SQLite's own `merge` command runs in steps of {@link MERGE_PAGES} pages, each
 * its own transaction with a turn of the event loop between, starting {@link MERGE_DELAY_MS} after the
 * last change and going on while a step finds work (a step that changes fewer than 2 rows found none,
 * as FTS5 documents). The merging is idle work: a change while it runs stops it after the step in
 * hand and puts it off again, so a burst of adds (a watch run, an import) never waits behind a
 * round of steps between its own reads. FTS5's `crisismerge` stays on: should merging never find a
 * quiet moment, the index still merges inside a write rather than grow without bound.
 */
export class TextMerger {
  private readonly merge: StatementSync;
  private readonly changes: StatementSync;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** A change came since the round began: it ends after its step in hand. */
  private interrupted = false;
  private stopped = false;
  /** Rows this merging changed (the connection's total_changes counts them), which change no content. */
  private merged = 0;

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

  /** Rows the merge steps changed so far: in the connection's total_changes, though no content changed. */
  get changesMade(): number {
    return this.merged;
  }

  /** Whether a merge is due or running. */
  get busy(): boolean {
    return this.timer !== null || this.running !== null;
  }

  /**
   * After a commit that changed the index: merging starts {@link MERGE_DELAY_MS} after the last such
   * commit; a round under way ends after its step in hand and waits again.
   */
  nudge(): void {
    if (this.stopped) return;
    // A round under way (even one inside its first step) ends after its step in hand.
    this.interrupted = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.running) {
        void this.startRound();
        return;
      }
      // A round still ending (its step in hand) hands over to this one.
      void this.running.then(() => {
        if (!this.stopped && !this.running) void this.startRound();
      });
    }, this.opts.delayMs ?? MERGE_DELAY_MS);
    this.timer.unref();
  }

  private startRound(): Promise<void> {
    this.interrupted = false;
    const round = this.run().finally(() => {
      if (this.running === round) this.running = null;
    });
    this.running = round;
    return round;
  }

  /** Merges now, step by step, until a step finds nothing to merge or a change puts the merging off (what the timer runs; tests await it). */
  async settle(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.running;
    await this.startRound();
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
    const changed = (this.changes.get() as { n: number }).n - before;
    this.merged += changed;
    return changed >= 2;
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped && !this.interrupted && this.db.isOpen && this.step()) await new Promise((resolve) => setImmediate(resolve));
    } catch (e) {
      // The index stays correct unmerged (and crisismerge still bounds it); the next change tries again.
      this.opts.onWarning?.(`Could not merge the library's text index: ${(e as Error).message}`);
    }
  }
}
