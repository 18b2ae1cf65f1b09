import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DATABASE_FILE, MIGRATIONS, WAL_SIZE_LIMIT, inTransaction, migrate, openDatabase, type Migration } from '../../../main/shared/database.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-db-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

const version = (db: DatabaseSync) => (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;

describe('the schema steps', () => {
  // Each released step as it shipped: its number (its place here), its name and a sha256 of its name and SQL.
  // A database of any earlier version upgrades by the same SQL only while these hold; a change is a new step.
  const RELEASED = [
    ['library catalog', 'f8c32330da67d408eb576c0ae27e964e8b4a71155343315a83ae9a31afdf24fb'],
    ['team registration outbox', '3dd07b727b687e1c64c74c8d2f187783c032132d6b5ebe3ddc1e8a2273e4d5b5'],
    ['download jobs', '9c0c80064e11f50754f29edb5b368328e2f98e6a2624b4264d3eca7246cd181c'],
    ['watches', 'dff44975daa9d88dcbac1e50fd31936ceb828ea651656341b84ff37db46f95dc'],
    ['spend ledger', '854921537bf4cb22f519c268a1eee4a5e19295056976612388bf81da3f9d5631'],
    ['library list indexes', 'ec2a1996590ce522a2271dab82aa953cb354d81b7262f99838e8e52c2a75cb19'],
    ['spend per account', 'f1ba61cdd218eaa22ce0ed4514f4df32aaf625cf58cca1298ffe8164d0b4a4a8'],
    ['library request keys', 'cbce534aa049dc0e6c2312edc45a72e806b7ebcb38daf0df19b4f376076e5a5a'],
  ];
  const fingerprint = (m: Migration) => createHash('sha256').update(m.name).update('\0').update(m.sql).digest('hex');

  it('keeps every released step, in its place, with the SQL it shipped with', () => {
    expect(MIGRATIONS.slice(0, RELEASED.length).map((m) => [m.name, fingerprint(m)])).toEqual(RELEASED);
  });

  it("comes from the features' own files, one step per file", async () => {
    const library = await import('../../../main/library/schema/library-request-keys.js');
    const spend = await import('../../../main/spend/schema/spend-per-account.js');
    expect(MIGRATIONS[7]).toBe(library.libraryRequestKeys);
    expect(MIGRATIONS[6]).toBe(spend.spendPerAccount);
    expect(new Set(MIGRATIONS).size).toBe(MIGRATIONS.length);
  });
});

describe('openDatabase', () => {
  it('creates swath.db in WAL mode with every schema step, and opens it again as it is', async () => {
    const first = await openDatabase({ dir });
    expect(first.created).toBe(true);
    expect(first.file).toBe(path.join(dir, DATABASE_FILE));
    expect(version(first.db)).toBe(MIGRATIONS.length);
    expect((first.db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal');
    const tables = (first.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['library', 'library_box', 'library_text', 'meta']));
    first.db.prepare("INSERT INTO meta (key, value) VALUES ('k', 'v')").run();
    first.db.close();

    const again = await openDatabase({ dir });
    expect(again.created).toBe(false);
    expect(again.db.prepare("SELECT value FROM meta WHERE key = 'k'").get()).toEqual({ value: 'v' });
    again.db.close();
  });

  it('applies only the steps past user_version, each with its version bump', async () => {
    const steps: Migration[] = [{ name: 'one', sql: 'CREATE TABLE a (x)' }];
    (await openDatabase({ dir, migrations: steps })).db.close();
    const more = [...steps, { name: 'two', sql: 'CREATE TABLE b (y)' }];
    const { db } = await openDatabase({ dir, migrations: more });
    expect(version(db)).toBe(2);
    expect((db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name IN ('a', 'b')").get() as { n: number }).n).toBe(2);
    db.close();
  });

  it('rolls a failed step back whole: the version stays, nothing of the step remains', async () => {
    const file = path.join(dir, 'steps.db');
    const db = new DatabaseSync(file);
    expect(() => migrate(db, [{ name: 'one', sql: 'CREATE TABLE a (x)' }, { name: 'two', sql: 'CREATE TABLE b (y); CREATE TABLE broken (' }]))
      .toThrow(/schema step 2 \(two\) failed/);
    expect(version(db)).toBe(1);
    expect((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name)).toEqual(['a']);
    db.close();
  });

  it('sets a corrupt database aside (kept), says so, and starts with a new one', async () => {
    const { db } = await openDatabase({ dir });
    db.prepare("INSERT INTO meta (key, value) VALUES ('kept', 'yes')").run();
    db.close();
    const file = path.join(dir, DATABASE_FILE);
    const bytes = readFileSync(file);
    // Tear the file: keep the header page's magic, overwrite the schema pages.
    bytes.fill(0x5a, 100, Math.min(bytes.length, 8192));
    writeFileSync(file, bytes);

    const warnings: string[] = [];
    const fresh = await openDatabase({ dir, onWarning: (w) => warnings.push(w), now: () => 1234 });
    expect(fresh.created).toBe(true);
    expect(version(fresh.db)).toBe(MIGRATIONS.length);
    expect(fresh.db.prepare("SELECT value FROM meta WHERE key = 'kept'").get()).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`It was moved to ${file}.corrupt-1234 and kept there`);
    expect(warnings[0]).toContain('could not be used');
    expect(readdirSync(dir)).toContain(`${DATABASE_FILE}.corrupt-1234`);
    expect(readFileSync(path.join(dir, `${DATABASE_FILE}.corrupt-1234`)).subarray(100, 200)).toEqual(bytes.subarray(100, 200));
    fresh.db.close();
  });

  it('sets aside a file that is no database at all, and one written by a newer schema', async () => {
    writeFileSync(path.join(dir, DATABASE_FILE), 'hello, I am a text file and no database'.repeat(50));
    const warnings: string[] = [];
    (await openDatabase({ dir, onWarning: (w) => warnings.push(w), now: () => 1 })).db.close();
    expect(warnings[0]).toMatch(/file is not a database/);

    const { db } = await openDatabase({ dir });
    db.exec('PRAGMA user_version = 999');
    db.close();
    const { db: again } = await openDatabase({ dir, onWarning: (w) => warnings.push(w), now: () => 2 });
    expect(warnings[1]).toMatch(/written by a newer Swath \(schema 999/);
    expect(version(again)).toBe(MIGRATIONS.length);
    again.close();
  });
});

describe('inTransaction', () => {
  it('commits what succeeds and rolls back everything of a call that throws', async () => {
    const { db } = await openDatabase({ dir });
    inTransaction(db, () => db.prepare("INSERT INTO meta (key, value) VALUES ('a', '1')").run());
    expect(() => inTransaction(db, () => {
      db.prepare("INSERT INTO meta (key, value) VALUES ('b', '2')").run();
      throw new Error('half way');
    })).toThrow('half way');
    expect((db.prepare('SELECT key FROM meta ORDER BY key').all() as { key: string }[]).map((r) => r.key)).toEqual(['a']);
    expect(db.isTransaction).toBe(false);
    db.close();
  });
});

describe('checkpoints in a worker (checkpointInWorker)', () => {
  const autoCheckpoint = (db: DatabaseSync) => (db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
  // Enough commits to pass SQLite's 1,000-page auto-checkpoint several times over (a page per commit at least).
  const writeMany = (db: DatabaseSync, n: number) => {
    const put = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    for (let i = 0; i < n; i++) inTransaction(db, () => put.run(`k${i}`, 'x'.repeat(2000)));
  };

  it("turns main's auto-checkpoint off and checkpoints the whole log soon after main commits", async () => {
    const warnings: string[] = [];
    const opened = await openDatabase({ dir, checkpointInWorker: true, onWarning: (m) => warnings.push(m) });
    const c = opened.checkpointer!;
    expect(c.running).toBe(true);
    expect(autoCheckpoint(opened.db)).toBe(0);
    writeMany(opened.db, 1500);
    // The commits nudged the worker: a checkpoint of the whole log follows without being asked for.
    // (One may run while the commits go on; the last covers the whole log.)
    await vi.waitFor(() => {
      expect(c.last?.log).toBeGreaterThan(0);
      expect(c.last!.checkpointed).toBe(c.last!.log);
      expect(c.last!.busy).toBe(0);
    }, { timeout: 20_000, interval: 20 });
    // Everything written is in the database file: a fresh connection without the log reads it.
    await opened.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('-wal'))).toEqual([]);
    const again = new DatabaseSync(path.join(dir, DATABASE_FILE));
    expect((again.prepare("SELECT COUNT(*) AS n FROM meta WHERE key LIKE 'k%'").get() as { n: number }).n).toBe(1500);
    again.close();
    expect(warnings).toEqual([]);
  });

  it('checkpoints once the commits pause, or at the cap while they go on without one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const opened = await openDatabase({ dir, checkpointInWorker: true });
    try {
      const c = opened.checkpointer!;
      const post = vi.spyOn((c as unknown as { worker: { postMessage(m: unknown): void } }).worker, 'postMessage');
      // A burst: a commit every 500 ms for 5 s. Each puts the checkpoint off (1 s of quiet wanted).
      for (let i = 0; i < 10; i++) {
        writeMany(opened.db, 1);
        vi.advanceTimersByTime(500);
      }
      expect(post).not.toHaveBeenCalled();
      // The burst pauses: one checkpoint, a second after its last commit.
      vi.advanceTimersByTime(499);
      expect(post).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(post).toHaveBeenCalledExactlyOnceWith('go');
      await vi.waitFor(() => expect(c.last).not.toBeNull(), { timeout: 20_000, interval: 20 });
      expect(c.last!.checkpointed).toBe(c.last!.log);

      // Commits without a pause: the checkpoint still runs 10 s after the first of them.
      post.mockClear();
      for (let i = 0; i < 40; i++) {
        writeMany(opened.db, 1);
        vi.advanceTimersByTime(250);
      }
      expect(post).toHaveBeenCalledExactlyOnceWith('go');
    } finally {
      vi.useRealTimers();
      await opened.close();
    }
  });

  it('cuts the log back on disk after a burst once it is checkpointed', async () => {
    const opened = await openDatabase({ dir, checkpointInWorker: true });
    try {
      const c = opened.checkpointer!;
      const wal = () => statSync(path.join(dir, `${DATABASE_FILE}-wal`)).size;
      // A burst larger than the limit (200 commits of 128 KB), then the checkpoint after it.
      const put = opened.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
      for (let i = 0; i < 200; i++) inTransaction(opened.db, () => put.run(`big${i}`, 'y'.repeat(128 * 1024)));
      expect(wal()).toBeGreaterThan(WAL_SIZE_LIMIT);
      await vi.waitFor(() => {
        expect(c.last?.log).toBeGreaterThan(0);
        expect(c.last!.checkpointed).toBe(c.last!.log);
      }, { timeout: 20_000, interval: 20 });
      // The next commit starts the log over and cuts the file back to the limit.
      inTransaction(opened.db, () => put.run('after', 'z'));
      expect(wal()).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
    } finally {
      await opened.close();
    }
  });

  it("gives main's connection its auto-checkpoint back, with a notice, when the worker dies", async () => {
    const warnings: string[] = [];
    const opened = await openDatabase({ dir, checkpointInWorker: true, onWarning: (m) => warnings.push(m) });
    const c = opened.checkpointer!;
    const stopped = new Promise<void>((resolve) => (c as unknown as { worker: { once(e: string, f: () => void): void } }).worker.once('exit', resolve));
    await (c as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await stopped;
    expect(c.running).toBe(false);
    expect(autoCheckpoint(opened.db)).toBe(1000);
    expect(warnings.join('\n')).toMatch(/checkpoints moved back to the main thread: the checkpoint worker failed \(it stopped/);
    writeMany(opened.db, 10);
    await opened.close();
  });
});
