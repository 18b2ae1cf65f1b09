import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LibraryCatalog } from '../../../main/library/index.js';
import { TextMerger } from '../../../main/library/text-merger.js';

let dir: string;
let db: DatabaseSync;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-fts-'));
  db = new DatabaseSync(path.join(dir, 'x.db'));
  db.exec("PRAGMA journal_mode = WAL; CREATE VIRTUAL TABLE t USING fts5 (text, tokenize = 'trigram')");
});
afterEach(() => {
  if (db.isOpen) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `n` rows, each inserted in a transaction of its own (as the catalog records downloads). */
function insertEach(n: number, from = 0): void {
  const insert = db.prepare('INSERT INTO t (rowid, text) VALUES (?, ?)');
  for (let i = from; i < from + n; i++) insert.run(i + 1, `composite_2025${String(i).padStart(4, '0')}_ndvi_stratus2.tif`);
}
const found = (word: string) => (db.prepare('SELECT count(*) AS n FROM t WHERE t MATCH ?').get(`"${word}"`) as { n: number }).n;

describe('TextMerger', () => {
  it('leaves the merging out of the commits and does it in steps afterwards', async () => {
    const merger = new TextMerger(db, 't', { delayMs: 60_000 });
    expect(db.prepare("SELECT v FROM t_config WHERE k = 'automerge'").get()).toEqual({ v: 0 });
    insertEach(40);
    // The commits left their segments unmerged: a step finds work.
    expect(merger.step()).toBe(true);
    await merger.settle();
    expect(merger.step()).toBe(false);
    expect(found('ndvi')).toBe(40);
    expect(found('_20250039_')).toBe(1);
  });

  it('starts merging a moment after a change, once for a burst', async () => {
    const merger = new TextMerger(db, 't', { delayMs: 5 });
    const step = vi.spyOn(merger, 'step');
    insertEach(40);
    for (let i = 0; i < 40; i++) merger.nudge();
    expect(merger.busy).toBe(true);
    await vi.waitFor(() => expect(merger.busy).toBe(false));
    // One round: its steps until one found nothing.
    expect(step.mock.results.at(-1)!.value).toBe(false);
    expect(step.mock.results.slice(0, -1).every((r) => r.value === true)).toBe(true);
    expect(step.mock.results.length).toBeGreaterThan(1);
    step.mockRestore();
    expect(merger.step()).toBe(false);
  });

  it('starts only once the changes pause: each change puts the round off again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const merger = new TextMerger(db, 't', { delayMs: 100 });
      const step = vi.spyOn(merger, 'step');
      insertEach(40);
      merger.nudge();
      vi.advanceTimersByTime(80);
      merger.nudge();
      vi.advanceTimersByTime(80);
      expect(step).not.toHaveBeenCalled();
      vi.advanceTimersByTime(20);
      expect(step).toHaveBeenCalled();
      vi.useRealTimers();
      await vi.waitFor(() => expect(merger.busy).toBe(false));
      expect(step.mock.results.at(-1)!.value).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a change while a round runs ends it after the step in hand and puts the rest off', async () => {
    const merger = new TextMerger(db, 't', { delayMs: 60_000 });
    // Small index pages: merging these rows takes many steps (a step writes at most MERGE_PAGES pages).
    db.exec("INSERT INTO t(t, rank) VALUES('pgsz', 64)");
    insertEach(400);
    const original = merger.step.bind(merger);
    // A commit lands between the first step and the next (as an add's transaction would).
    const step = vi.spyOn(merger, 'step').mockImplementation(() => {
      const merged = original();
      if (step.mock.calls.length === 1) merger.nudge();
      return merged;
    });
    await merger.settle();
    expect(step).toHaveBeenCalledTimes(1);
    expect(step.mock.results[0]!.value).toBe(true);
    // Put off, not dropped: the next round is due and there is work left for it.
    expect(merger.busy).toBe(true);
    step.mockRestore();
    expect(merger.step()).toBe(true);
    await merger.settle();
    expect(merger.step()).toBe(false);
    merger.stop();
    expect(merger.busy).toBe(false);
  });

  it('never merges after stop, and a failing merge is a warning, not a crash', async () => {
    const warnings: string[] = [];
    const merger = new TextMerger(db, 't', { delayMs: 5, onWarning: (m) => warnings.push(m) });
    insertEach(10);
    merger.stop();
    merger.nudge();
    expect(merger.busy).toBe(false);

    const other = new TextMerger(db, 't', { delayMs: 5, onWarning: (m) => warnings.push(m) });
    db.exec('DROP TABLE t');
    await other.settle();
    expect(warnings).toEqual([expect.stringMatching(/^Could not merge the library's text index: /)]);
  });

  it('refuses a table name that is not one, and warns when automerge cannot be turned off', () => {
    expect(() => new TextMerger(db, 't; DROP TABLE t')).toThrow('Not a table name');
    const warnings: string[] = [];
    const readOnly = new DatabaseSync(path.join(dir, 'x.db'), { readOnly: true });
    try {
      expect(() => new TextMerger(readOnly, 't', { onWarning: (m) => warnings.push(m) })).not.toThrow();
    } finally {
      readOnly.close();
    }
    expect(warnings).toEqual([expect.stringMatching(/^Could not move the library's text index merges out of its writes: .*readonly/)]);
  });
});

describe('the catalog', () => {
  it('turns FTS5 automerge off on its text index, merges nothing on open and stops merging when closed', async () => {
    db.close();
    const cat = await LibraryCatalog.open({ dir });
    expect(cat.db.prepare("SELECT v FROM library_text_config WHERE k = 'automerge'").get()).toEqual({ v: 0 });
    // Opening changes nothing that needs merging (a merge step would count as a change and drop the warmed first page).
    expect(cat.textMerger.busy).toBe(false);
    cat.textMerger.nudge();
    expect(cat.textMerger.busy).toBe(true);
    await cat.close();
    expect(cat.textMerger.busy).toBe(false);
  });
});
