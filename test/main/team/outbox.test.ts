import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { abortError } from '../../../common/abort.js';
import { AppError } from '../../../common/errors.js';
import { openDatabase } from '../../../main/shared/database.js';
import { TeamCatalogError } from '../../../main/team/catalog.js';
import { PROBE_MS, RegistrationOutbox, defaultBackoff, scrubReason, type OutboxOptions, type RegistrationPort } from '../../../main/team/outbox.js';
import type { TeamRasterInput } from '../../../main/team/types.js';
import { registration } from './fixtures.js';

const input = registration;

/**
 * An in-memory stand-in of the team catalog's registration port (the outbox is what is tested): it
 * can be down (a connection failure naming a URL with a password), refuse a storage path as
 * invalid, or hold registrations until released; it counts every registration it stored.
 */
class StandInCatalog implements RegistrationPort {
  down = false;
  /** Down as the real catalog says it when the server does not answer (`unreachable`). */
  downUnreachable = false;
  readonly refused = new Set<string>();
  readonly stored: string[] = [];
  readonly attempts: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  hold: Promise<void> | null = null;
  private entered: (() => void)[] = [];

  /** Resolves when a registration is in flight. */
  whenInFlight(): Promise<void> {
    return this.inFlight > 0 ? Promise.resolve() : new Promise((resolve) => this.entered.push(resolve));
  }

  async register(input: TeamRasterInput, signal?: AbortSignal): Promise<{ id: string }> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.attempts.push(input.storagePath);
    for (const w of this.entered.splice(0)) w();
    try {
      if (this.hold) {
        const hold = this.hold;
        await new Promise<void>((resolve, reject) => {
          hold.then(resolve, reject);
          signal?.addEventListener('abort', () => reject(abortError(signal)), { once: true });
        });
      }
      await Promise.resolve();
      if (this.down && this.downUnreachable) throw new TeamCatalogError('transient', 'The team catalog is unreachable: cannot reach alice@db.example.org:5432/team (ECONNREFUSED).', true);
      if (this.down) throw new Error('connect ECONNREFUSED 10.0.0.5:5432 (postgres://alice:hunter2@db.example.org/team, password=hunter2)');
      if (this.refused.has(input.storagePath)) throw new AppError('validation', `footprint of ${input.storagePath} has 2000000 vertices (at most 100000)`);
      this.stored.push(input.storagePath);
      return { id: String(this.stored.length) };
    } finally {
      this.inFlight--;
    }
  }

  count(storagePath: string): number {
    return this.stored.filter((p) => p === storagePath).length;
  }
}

/** The outbox's pauses, under the test's control: each one waits until the test releases it. */
class Pauses {
  readonly asked: number[] = [];
  private pending: { resolve: () => void }[] = [];
  private watchers: { n: number; resolve: () => void }[] = [];

  readonly wait = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      this.asked.push(ms);
      const entry = { resolve };
      this.pending.push(entry);
      signal.addEventListener('abort', () => {
        this.pending = this.pending.filter((p) => p !== entry);
        reject(abortError(signal));
      }, { once: true });
      for (const w of this.watchers.filter((x) => this.asked.length >= x.n)) w.resolve();
      this.watchers = this.watchers.filter((x) => this.asked.length < x.n);
    });

  /** Resolves when the outbox has begun its `n`th pause. */
  reached(n: number): Promise<void> {
    if (this.asked.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.watchers.push({ n, resolve }));
  }

  /** Ends the current pause. */
  release(): void {
    this.pending.shift()?.resolve();
  }
}

let tmp: string;
let db: DatabaseSync;
let catalog: StandInCatalog;
let pauses: Pauses;
const outboxes: RegistrationOutbox[] = [];

function outbox(over: Partial<OutboxOptions> = {}): RegistrationOutbox {
  const o = new RegistrationOutbox({ db, port: catalog, wait: pauses.wait, now: () => Date.parse('2026-11-25T10:00:00Z'), ...over });
  outboxes.push(o);
  return o;
}

beforeEach(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'swath-outbox-'));
  db = (await openDatabase({ dir: tmp })).db;
  catalog = new StandInCatalog();
  pauses = new Pauses();
});

afterEach(async () => {
  for (const o of outboxes.splice(0)) await o.close();
  if (db.isOpen) db.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('RegistrationOutbox', () => {
  it('sends in the order queued and forgets an item only once the catalog confirmed it', async () => {
    const o = outbox();
    o.enqueue(input('a'));
    o.enqueue(input('b'));
    o.enqueue(input('c'));
    await o.idle();
    expect(catalog.stored).toEqual(['alice/a.tif', 'alice/b.tif', 'alice/c.tif']);
    expect(o.pending()).toBe(0);
    expect(o.status).toEqual({ pending: 0, parked: 0, failingSince: null, lastReason: null });
  });

  it('keeps the queue across a restart (the database closed and opened again) and delivers it then', async () => {
    catalog.down = true;
    const first = outbox();
    first.enqueue(input('a'));
    first.enqueue(input('b'));
    first.enqueue(input('c'));
    await pauses.reached(1);
    expect(first.status).toMatchObject({ pending: 3, failingSince: '2026-11-25T10:00:00.000Z' });
    await first.close();
    db.close();

    db = (await openDatabase({ dir: tmp })).db;
    catalog.down = false;
    const second = outbox();
    expect(second.pending()).toBe(3);
    second.start();
    await second.idle();
    expect(catalog.stored).toEqual(['alice/a.tif', 'alice/b.tif', 'alice/c.tif']);
    expect(second.pending()).toBe(0);
  });

  it('while the catalog fails: waits longer each time, says since when and why without the password, then delivers each item exactly once, one at a time', async () => {
    catalog.down = true;
    const statuses: string[] = [];
    const o = outbox({ backoff: defaultBackoff, onStatus: (s) => statuses.push(s.lastReason ?? '') });
    for (const n of ['a', 'b', 'c']) o.enqueue(input(n));
    await pauses.reached(1);
    pauses.release();
    await pauses.reached(2);
    expect(pauses.asked).toEqual([1000, 2000]);
    const s = o.status;
    expect(s.failingSince).toBe('2026-11-25T10:00:00.000Z');
    expect(s.lastReason).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify([s, statuses, o.parked()])).not.toContain('hunter2');
    expect(catalog.stored).toEqual([]);
    o.enqueue(input('d'));
    catalog.down = false;
    pauses.release();
    await o.idle();
    expect(catalog.stored).toEqual(['alice/a.tif', 'alice/b.tif', 'alice/c.tif', 'alice/d.tif']);
    for (const n of ['a', 'b', 'c', 'd']) expect(catalog.count(`alice/${n}.tif`)).toBe(1);
    expect(catalog.maxInFlight).toBe(1);
    expect(o.status).toEqual({ pending: 0, parked: 0, failingSince: null, lastReason: null });
  });

  it('while the catalog does not answer at all, tries again every few seconds at most, so what waited goes soon after it is back', async () => {
    catalog.down = true;
    catalog.downUnreachable = true;
    const o = outbox({ backoff: defaultBackoff });
    o.enqueue(input('a'));
    for (let n = 1; n <= 12; n++) {
      await pauses.reached(n);
      if (n < 12) pauses.release();
    }
    expect(pauses.asked).toEqual([1000, 2000, 4000, ...Array(9).fill(PROBE_MS)]);
    expect(PROBE_MS).toBeLessThanOrEqual(5000);
    catalog.down = false;
    pauses.release();
    await o.idle();
    expect(catalog.stored).toEqual(['alice/a.tif']);
  });

  it('retryNow ends the pause at once (the catalog is known to be back)', async () => {
    catalog.down = true;
    const o = outbox();
    o.enqueue(input('a'));
    await pauses.reached(1);
    catalog.down = false;
    o.retryNow();
    await o.idle();
    expect(catalog.stored).toEqual(['alice/a.tif']);
  });

  it('parks a registration the catalog refuses as invalid, with its reason, and goes on with the rest', async () => {
    catalog.refused.add('alice/b.tif');
    const o = outbox();
    for (const n of ['a', 'b', 'c']) o.enqueue(input(n));
    await o.idle();
    expect(catalog.stored).toEqual(['alice/a.tif', 'alice/c.tif']);
    expect(catalog.attempts.filter((p) => p === 'alice/b.tif')).toHaveLength(1);
    expect(o.parked()).toEqual([
      { id: expect.any(Number), sha256: input('b').sha256, storagePath: 'alice/b.tif', reason: 'footprint of alice/b.tif has 2000000 vertices (at most 100000)', parkedAt: '2026-11-25T10:00:00.000Z' },
    ]);
    expect(o.status).toMatchObject({ pending: 0, parked: 1, failingSince: null });

    catalog.refused.clear();
    expect(o.retryParked(o.parked()[0]!.id)).toBe(true);
    await o.idle();
    expect(catalog.stored).toEqual(['alice/a.tif', 'alice/c.tif', 'alice/b.tif']);
    expect(o.status.parked).toBe(0);
  });

  it('queues the same raster at the same path once; queued again after being parked, it replaces the parked one', async () => {
    catalog.down = true;
    const o = outbox();
    o.enqueue(input('a'));
    o.enqueue(input('a'));
    expect(o.pending()).toBe(1);
    await o.close();

    catalog.down = false;
    catalog.refused.add('alice/x.tif');
    const again = outbox();
    again.enqueue(input('x'));
    await again.idle();
    expect(again.status).toMatchObject({ parked: 1 });
    catalog.refused.clear();
    again.enqueue(input('x', { costEur: 2 }));
    await again.idle();
    expect(again.status).toMatchObject({ pending: 0, parked: 0 });
    expect(catalog.stored).toEqual(['alice/a.tif', 'alice/x.tif']);
  });

  it('refuses to queue a registration without a sha256, with a hostile storage path, or too big', () => {
    const o = outbox();
    expect(() => o.enqueue(input('a', { sha256: 'nope' }))).toThrow(/sha256/);
    expect(() => o.enqueue(input('a', { storagePath: '../../etc/passwd' }))).toThrow(/storage path is not valid: it climbs out/);
    expect(() => o.enqueue(input('a', { stac: { blob: 'x'.repeat(2 * 1024 * 1024) } }))).toThrow(/larger than 1 MiB/);
    expect(o.pending()).toBe(0);
  });

  it('closes cleanly with a registration in flight: it stays queued and is sent after the next start', async () => {
    let release!: () => void;
    catalog.hold = new Promise<void>((resolve) => (release = resolve));
    const o = outbox();
    o.enqueue(input('a'));
    await catalog.whenInFlight();
    await o.close();
    expect(() => o.enqueue(input('b'))).toThrow(/closed/);
    release();
    catalog.hold = null;
    const next = outbox();
    expect(next.pending()).toBe(1);
    next.start();
    await next.idle();
    expect(catalog.stored).toEqual(['alice/a.tif']);
  });
});

describe('scrubReason', () => {
  it('masks credentials in URLs and password pairs, applies the caller\'s masking, and keeps one bounded line', () => {
    const text = scrubReason(new Error('no pg_hba.conf entry for postgres://bob:s3cr3t@10.1.1.1/team password=s3cr3t\nsecond line KEY-123456'), (t) => t.replaceAll('KEY-123456', '•••• 3456'));
    expect(text).not.toContain('s3cr3t');
    expect(text).not.toContain('KEY-123456');
    expect(text).toBe('no pg_hba.conf entry for postgres://***@10.1.1.1/team password=***\\nsecond line •••• 3456');
    expect(scrubReason(new Error('x'.repeat(1000))).length).toBeLessThan(400);
  });
});
