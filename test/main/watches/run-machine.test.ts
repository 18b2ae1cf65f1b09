import { describe, expect, it } from 'vitest';
import type { DownloadJob } from '../../../main/downloads';
import type { BatchLimits, BatchPlan } from '../../../main/batch-plan';
import {
  MAX_FAILURES, RETRY_BASE_MS, announcement, emptyTally, failed, finished, paused, resumeDate, startDate, tallied, transition,
  type DateEvent, type DateState, type RunContext,
} from '../../../main/watches/run-machine';
import type { Watch } from '../../../main/watches';
import { WATCH_INPUT } from './watch-input';

// The run's state machine on its own: states and events in, states out; no service, queue or store.

const NOW = Date.parse('2026-05-20T10:00:00Z');
const AT = new Date(NOW).toISOString();
const DATE = '2026-05-18';
const LIMITS: BatchLimits = { maxCompositeAreaKm2: 2500, maxTotalBands: 12 };

function watch(over: Partial<Watch> = {}): Watch {
  return {
    ...WATCH_INPUT, id: 'w1', profileId: 'p1', state: 'active', notice: null, running: true, lastRunAt: null, lastResult: null,
    nextRunAt: null, failures: 0, dates: [], allowOverMonth: null, createdAt: AT, updatedAt: AT, ...over,
  };
}

const ctx = (over: Partial<Watch> = {}): RunContext => ({ watch: watch(over), now: NOW });

function job(over: Partial<DownloadJob>): DownloadJob {
  return { id: 'j1', kind: 'composite', request: {}, targetDir: '/d', state: 'done', bytes: 0, total: null, attempts: 1, createdAt: AT, updatedAt: AT, ...over };
}

/** Feeds events one by one from a date's first state; returns every state passed through. */
function run(c: RunContext, events: DateEvent[], from: DateState = startDate(c.watch, DATE)): DateState[] {
  const states = [from];
  for (const e of events) states.push(transition(c, states.at(-1)!, e));
  return states;
}

/** The machine carries the plan to the download untouched. */
const PLAN = { kind: 'single', request: {}, parts: [] } as unknown as BatchPlan;
const known = (eur: number) => ({ state: 'known' as const, eur });
const toEstimate: DateEvent[] = [{ type: 'library', answer: null }, { type: 'available', fully: true }, { type: 'team', answer: { kind: 'buy', purchase: null } }];

describe("a watch date's state machine", () => {
  it('links the identical file already in the library at 0 EUR, asking nothing else', () => {
    const states = run(ctx(), [{ type: 'library', answer: { libraryId: 'lib1', path: '/d/a.tif' } }]);
    expect(states.map((s) => s.at)).toEqual(['library', 'settled']);
    expect(states.at(-1)).toEqual({
      at: 'settled', date: DATE, outcome: { kind: 'linked' },
      record: { date: DATE, state: 'downloaded', note: 'Already in your library: /d/a.tif (0 EUR).', libraryIds: ['lib1'], files: ['/d/a.tif'], jobId: null, costEur: 0, at: AT },
    });
  });

  it('waits for an identical download the queue is buying now, storing nothing', () => {
    expect(run(ctx(), [{ type: 'library', answer: { pendingJob: 'j9' } }]).at(-1)).toEqual({ at: 'settled', date: DATE, outcome: { kind: 'coming' } });
  });

  it('checks a date that is not fully available again next run, before asking the team', () => {
    const states = run(ctx(), [{ type: 'library', answer: null }, { type: 'available', fully: false }]);
    expect(states.map((s) => s.at)).toEqual(['library', 'available', 'settled']);
    expect(states.at(-1)).toEqual({ at: 'settled', date: DATE, outcome: { kind: 'not-yet' } });
  });

  it("takes a teammate's copy at 0 EUR as a downloaded date, with nothing to record in the ledger", () => {
    const last = run(ctx(), [...toEstimate.slice(0, 2), { type: 'team', answer: { kind: 'owned', libraryId: 'lib2', path: '/share/a.tif', note: 'From the team library.' } }]).at(-1)!;
    expect(last).toEqual({
      at: 'settled', date: DATE, outcome: { kind: 'downloaded', libraryIds: ['lib2'], spend: null, teamCopy: null },
      record: { date: DATE, state: 'downloaded', note: 'From the team library.', libraryIds: ['lib2'], files: ['/share/a.tif'], jobId: null, costEur: 0, at: AT },
    });
  });

  it('waits while a teammate is buying the date', () => {
    const last = run(ctx(), [...toEstimate.slice(0, 2), { type: 'team', answer: { kind: 'wait', note: 'ben is buying it' } }]).at(-1);
    expect(last).toEqual({ at: 'settled', date: DATE, outcome: { kind: 'not-yet' } });
  });

  it('buys a date within the cap: guard, queue (stored as queued first), then downloaded with the pass spent and the team told', () => {
    const c = ctx({ capEur: 20 });
    const states = run(c, [
      ...toEstimate,
      { type: 'estimated', plan: PLAN, limits: LIMITS, cost: known(3) },
      { type: 'cleared' },
      { type: 'queued', jobId: 'j1' },
      { type: 'ended', job: job({ file: '/d/w/a.tif', libraryId: 'lib3' }), libraryIds: ['lib3'] },
    ]);
    expect(states.map((s) => s.at)).toEqual(['library', 'available', 'team', 'estimate', 'guard', 'download', 'job', 'settled']);
    expect(states[4]).toMatchObject({ at: 'guard', cost: known(3), agreed: false, what: `The watch's download of ${DATE}` });
    expect(states[5]).toMatchObject({ at: 'download', costEur: 3 });
    expect(states[6]).toMatchObject({ at: 'job', jobId: 'j1', fresh: true, record: { state: 'queued', jobId: 'j1', costEur: 3, libraryIds: [], files: [] } });
    expect(states[7]).toEqual({
      at: 'settled', date: DATE, outcome: { kind: 'downloaded', libraryIds: ['lib3'], spend: 'pass', teamCopy: { libraryId: 'lib3', costEur: 3 } },
      record: { date: DATE, state: 'downloaded', libraryIds: ['lib3'], files: ['/d/w/a.tif'], jobId: 'j1', costEur: 3, at: AT },
    });
  });

  it('pauses at the cap when the month spend plus the cost goes past it, before the spend guard is asked', () => {
    const c = ctx({ capEur: 5, dates: [{ date: '2026-05-02', state: 'downloaded', libraryIds: ['x'], files: ['/x'], jobId: 'j0', costEur: 4, at: '2026-05-02T00:00:00.000Z' }] });
    const states = run(c, [...toEstimate, { type: 'estimated', plan: PLAN, limits: LIMITS, cost: known(1.5) }]);
    expect(states.map((s) => s.at)).toEqual(['library', 'available', 'team', 'estimate', 'settled']);
    expect(states.at(-1)).toEqual({ at: 'settled', date: DATE, outcome: { kind: 'paused', notice: `Paused at its cap: ${DATE} costs 1.50 EUR and the watch has spent 4.00 of its 5.00 EUR this month. Raise the cap, or resume and confirm to go past it.` } });
    // The analyst's consent for this month lets the cost through to the guard, which still decides.
    const agreed = ctx({ ...c.watch, allowOverMonth: '2026-05' });
    expect(run(agreed, [...toEstimate, { type: 'estimated', plan: PLAN, limits: LIMITS, cost: known(1.5) }]).at(-1)).toMatchObject({ at: 'guard', agreed: true });
  });

  it('pauses at a cost it cannot read: at the cap itself, or at the guard without one', () => {
    const unknown = { state: 'unknown' as const, reason: 'no money field' };
    const capped = run(ctx({ capEur: 20 }), [...toEstimate, { type: 'estimated', plan: PLAN, limits: LIMITS, cost: unknown }]).at(-1)!;
    expect(capped).toMatchObject({ at: 'settled', outcome: { kind: 'paused' } });
    expect((capped as { outcome: { notice: string } }).outcome.notice).toMatch(/^Paused at its cap: the cost of 2026-05-18 is .+, so the watch cannot tell whether it stays within its 20.00 EUR/);
    const states = run(ctx({ capEur: null }), [
      ...toEstimate,
      { type: 'estimated', plan: PLAN, limits: LIMITS, cost: unknown },
      { type: 'refused', verdict: { decision: 'confirm', source: 'ledger', reason: 'This download has no cost Swath can read.', costKnown: false } },
    ]);
    expect(states.at(-2)).toMatchObject({ at: 'guard', cost: unknown });
    expect(states.at(-1)).toEqual({ at: 'settled', date: DATE, outcome: { kind: 'paused', notice: `Paused: ${DATE} download has no cost Swath can read. Download that date yourself to confirm its cost.` } });
  });

  it('pauses when the spend guard refuses: at the monthly budget, or at the policy ceiling', () => {
    const toGuard: DateEvent[] = [...toEstimate, { type: 'estimated', plan: PLAN, limits: LIMITS, cost: known(3) }];
    const budget = run(ctx({ capEur: null }), [...toGuard, { type: 'refused', verdict: { decision: 'confirm', source: 'billing', reason: 'This costs 3.00 EUR.', costKnown: true } }]).at(-1);
    expect(budget).toEqual({ at: 'settled', date: DATE, outcome: { kind: 'paused', notice: `Paused at the monthly budget: ${DATE} costs 3.00 EUR. (Spend from the service's billing.) Raise the budget, or resume and confirm to go past it.` } });
    const ceiling = run(ctx({ capEur: null }), [...toGuard, { type: 'refused', verdict: { decision: 'refused', source: 'ledger', reason: 'This passes the ceiling.', costKnown: true } }]).at(-1);
    expect(ceiling).toMatchObject({ outcome: { kind: 'paused', notice: `Paused at the policy's ceiling: ${DATE} passes the ceiling.` } });
  });

  it('stops for the analyst when the download may have been charged, storing the date as failed', () => {
    const from: DateState = { at: 'job', date: DATE, jobId: 'j1', costEur: 3, fresh: true };
    const last = transition(ctx(), from, { type: 'ended', job: job({ state: 'failed', mayHaveCharged: true, errorKind: 'transient', reason: 'cut off' }), libraryIds: [] });
    expect(last).toMatchObject({ at: 'settled', outcome: { kind: 'stop', failure: { handling: 'attention' } }, record: { state: 'failed', jobId: 'j1', costEur: null } });
    const notice = (last as { outcome: { failure: { notice: string } } }).outcome.failure.notice;
    expect(notice).toContain('may be charged already; the watch does not buy it again on its own');
    expect(notice).toContain('“cut off”');
    // Without that mark, a transient failure of the job is retried by the run's backoff.
    expect(transition(ctx(), from, { type: 'ended', job: job({ state: 'failed', errorKind: 'transient', reason: 'cut off' }), libraryIds: [] }))
      .toMatchObject({ outcome: { kind: 'stop', failure: { handling: 'retry', message: 'cut off' } }, record: { state: 'failed', note: 'cut off' } });
  });

  it('sets aside a date the service does not serve, and stops on a refusal', () => {
    expect(run(ctx(), [{ type: 'library', answer: null }, { type: 'error', kind: 'coverage', message: 'not covered' }]).at(-1))
      .toMatchObject({ at: 'settled', outcome: { kind: 'skipped' }, record: { state: 'skipped', jobId: null } });
    expect(run(ctx(), [{ type: 'library', answer: null }, { type: 'error', kind: 'credit', message: '994' }]).at(-1))
      .toEqual({ at: 'settled', date: DATE, outcome: { kind: 'stop', failure: expect.objectContaining({ handling: 'attention' }) } });
  });

  it('settles a date an earlier run queued: recorded in the ledger unless the job carries its pass; dropped when the queue lost it', () => {
    const d = { date: DATE, state: 'queued' as const, libraryIds: [], files: [], jobId: 'j7', costEur: 2, at: AT };
    const done = transition(ctx(), resumeDate(d), { type: 'ended', job: job({ id: 'j7', file: '/f.tif' }), libraryIds: ['lib7'] });
    expect(done).toMatchObject({ outcome: { kind: 'downloaded', spend: { record: 2 }, teamCopy: null } });
    const passed = transition(ctx(), resumeDate(d), { type: 'ended', job: job({ id: 'j7', file: '/f.tif', pass: { profileId: 'p1' } as never }), libraryIds: ['lib7'] });
    expect(passed).toMatchObject({ outcome: { kind: 'downloaded', spend: null } });
    expect(transition(ctx(), resumeDate(d), { type: 'ended', job: null, libraryIds: [] })).toEqual({ at: 'settled', date: DATE, outcome: { kind: 'dropped' } });
    // A job this run queued that left the queue is a transient failure.
    expect(transition(ctx(), { at: 'job', date: DATE, jobId: 'j1', costEur: 3, fresh: true }, { type: 'ended', job: null, libraryIds: [] }))
      .toMatchObject({ outcome: { kind: 'stop', failure: { handling: 'retry' } } });
  });

  it('ignores an event that does not apply, and anything once settled', () => {
    const s = startDate(watch(), DATE);
    expect(transition(ctx(), s, { type: 'cleared' })).toBe(s);
    const settled = transition(ctx(), s, { type: 'library', answer: { pendingJob: 'j' } });
    expect(transition(ctx(), settled, { type: 'error', kind: 'credit', message: 'x' })).toBe(settled);
  });
});

describe("a watch run's end", () => {
  const apply = (change: (w: Watch) => void, w = watch()) => (change(w), w);

  it('goes through: the result names what it did, the next run is one interval on, a notice on an attention watch is cleared', () => {
    let t = emptyTally();
    t = tallied(t, '2026-05-01', { kind: 'downloaded', libraryIds: ['a'], spend: 'pass', teamCopy: null });
    t = tallied(t, '2026-05-02', { kind: 'linked' });
    t = tallied(t, '2026-05-03', { kind: 'not-yet' });
    t = tallied(t, '2026-05-04', { kind: 'skipped' });
    const w = apply(finished(t, NOW), watch({ state: 'attention', notice: 'x', failures: 2 }));
    expect(w).toMatchObject({ running: false, failures: 0, state: 'active', notice: null, lastRunAt: AT, nextRunAt: new Date(NOW + 6 * 3_600_000).toISOString() });
    expect(w.lastResult).toBe('Downloaded 2026-05-01. Already in your library (0 EUR): 2026-05-02. 1 date is not fully available yet (2026-05-03); checked again next run. Set aside (not served): 2026-05-04.');
    expect(apply(finished(emptyTally(), NOW)).lastResult).toBe('No new dates.');
    expect(announcement(watch(), t)).toEqual({ kind: 'watchDownloaded', title: 'Watch "Field A": 1 new date', body: 'Downloaded into the library: 2026-05-01.', target: { panel: 'library', watchId: 'w1', libraryId: 'a' } });
    expect(announcement(watch(), emptyTally())).toBeNull();
  });

  it('pauses with its notice and a notification', () => {
    const p = paused(watch(), emptyTally(), 'Paused at its cap: …', NOW);
    expect(apply(p.change)).toMatchObject({ running: false, state: 'paused', notice: 'Paused at its cap: …', lastResult: 'Paused by the spend guard.', nextRunAt: null });
    expect(p.note).toMatchObject({ kind: 'watchAttention', title: 'Watch "Field A" paused', target: { panel: 'watches', watchId: 'w1' } });
  });

  it('retries a transient failure with jittered backoff, then asks for attention after the last one in a row', () => {
    const first = failed(watch(), emptyTally(), { handling: 'retry', message: 'gone' }, NOW, 1);
    expect(first.note).toBeNull();
    expect(apply(first.change)).toMatchObject({ failures: 1, nextRunAt: new Date(NOW + RETRY_BASE_MS).toISOString(), state: 'active' });
    expect(apply(failed(watch({ failures: 1 }), emptyTally(), { handling: 'retry', message: 'gone' }, NOW, 0).change).nextRunAt).toBe(new Date(NOW + 2 * RETRY_BASE_MS).toISOString());
    const last = failed(watch({ failures: MAX_FAILURES - 1 }), emptyTally(), { handling: 'retry', message: 'gone' }, NOW, 0);
    expect(apply(last.change)).toMatchObject({ failures: MAX_FAILURES, state: 'attention', nextRunAt: null, lastResult: 'Failed.' });
    expect(last.note).toMatchObject({ kind: 'watchAttention', title: 'Watch "Field A" needs attention' });
    const stop = failed(watch(), tallied(emptyTally(), '2026-05-01', { kind: 'downloaded', libraryIds: [], spend: null, teamCopy: null }), { handling: 'attention', notice: 'Top up.' }, NOW, 0);
    expect(apply(stop.change)).toMatchObject({ state: 'attention', notice: 'Top up.', lastResult: 'Stopped. Downloaded before that: 2026-05-01.', nextRunAt: null });
  });
});
