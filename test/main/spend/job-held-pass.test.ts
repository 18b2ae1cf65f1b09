import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SpendGuard, SpendStore, monthOf } from '../../../main/spend';

// A pass a download job is sent under belongs to the job from its first POST on: only the job's
// end (or its charge) ends it. A watch run that stops while its job is still with the service (the
// app closing) lets go of the pass; the service's answer that comes after is still a ledger line.
// The spend guard and its store on a real swath.db; the billing summary names no spend, so the
// month is the ledger's.

const T0 = Date.parse('2026-11-20T10:00:00Z');
let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe("a job's spend pass", () => {
  it('is not ended by the caller that cleared it while the job runs: the charge that follows is recorded, and it counts as spent until then', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-held-pass-'));
    const store = await SpendStore.open(dir, { now: () => T0 });
    const guard = new SpendGuard({ store, activeProfile: async () => 'p1', account: async () => 'acct', billing: async () => ({}), now: () => T0 });
    const signal = new AbortController().signal;
    const pass = await guard.clear({ state: 'known', eur: 2.5 }, "The watch's download of 2026-11-19", signal, { ask: false });
    const job = { id: 'job-1', pass: pass.stored };
    // The queue clears the job before its POST: the watch's pass of this run.
    expect(await guard.clearJob(job, signal)).toEqual(pass.stored);
    // The watch run stops (the app is closing) and lets go of its pass; the POST is still out.
    pass.release();
    expect((await guard.verdict({ state: 'known', eur: 0 }, signal)).spentEur).toBe(2.5);
    // The service answers with the file: it charged.
    await guard.jobCharged(job);
    expect(store.ledgerSpend('acct', monthOf(T0))).toBe(2.5);
    guard.jobEnded({ id: job.id, state: 'failed' });
    expect((await guard.verdict({ state: 'known', eur: 0 }, signal)).spentEur).toBe(2.5);
    store.close();
  });
});
