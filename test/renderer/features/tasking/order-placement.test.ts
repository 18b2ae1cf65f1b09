/**
 * Order placement as a pure state machine (renderer/src/features/tasking/model/order-placement.ts),
 * driven through its states without Pinia or a bridge: idle → confirming → sending → created,
 * refused (failed), lost → checking → unknown (retry allowed or not), a stale estimate, cancel, a
 * new estimate and a new connection.
 */
import { describe, expect, it } from 'vitest';
import type { IpcError } from '../../../../preload/contract';
import {
  canPlace, initialPlacement, placeBlockedReason, transition, type PlacementEvent, type PlacementState,
} from '../../../../renderer/src/features/tasking/model/order-placement';

const run = (events: PlacementEvent[], from: PlacementState = initialPlacement()): PlacementState => events.reduce(transition, from);
const open = (estimateId: number | null, stale = false): PlacementEvent => ({ type: 'open', estimateId, stale });
const transient = { kind: 'transient', message: 'socket hang up' } as const;

describe('order placement', () => {
  it('without an estimate nothing can be placed and "open" is ignored', () => {
    const s = initialPlacement();
    expect(placeBlockedReason(s, null, [])).toBe('Estimate first: an order is placed from its estimate.');
    expect(canPlace(s, null, false)).toBe(false);
    expect(transition(s, open(null))).toBe(s);
  });

  it('idle → confirming → sending → created; the placed estimate cannot be placed again', () => {
    let s = run([{ type: 'estimated' }, open(1)]);
    expect(s.phase).toBe('confirming');
    s = run([{ type: 'send' }, { type: 'sent', estimateId: 1 }], s);
    expect(s.phase).toBe('sending');
    expect(s.sentFor).toEqual([1]);
    expect(placeBlockedReason(s, 1, [])).toBe('Placing the order…');
    s = transition(s, { type: 'created', estimateId: 1 });
    expect(s).toMatchObject({ phase: 'created', placedFor: [1], retryAllowed: false, checkNote: null });
    expect(placeBlockedReason(s, 1, [])).toBe('This estimate has been ordered. Estimate again to place another order.');
    expect(transition(s, open(1))).toBe(s);
    // A new estimate starts a new order.
    s = run([{ type: 'estimated' }, open(2)], s);
    expect(s.phase).toBe('confirming');
  });

  it('a stale estimate blocks placing with its first reason, and "open" is ignored', () => {
    const s = run([{ type: 'estimated' }]);
    expect(placeBlockedReason(s, 1, ['Edited since the estimate: From. Estimate again.'])).toBe('Edited since the estimate: From. Estimate again.');
    expect(canPlace(s, 1, true)).toBe(false);
    expect(transition(s, open(1, true)).phase).toBe('idle');
  });

  it('the estimate changing while the list is read abandons the send: idle, nothing sent', () => {
    const s = run([open(1), { type: 'send' }, { type: 'abandon' }]);
    expect(s).toMatchObject({ phase: 'idle', sentFor: [] });
    expect(canPlace(s, 1, false)).toBe(true);
  });

  it('cancel closes the confirmation back to idle, failed or unknown, and is ignored elsewhere', () => {
    expect(run([open(1), { type: 'cancel' }]).phase).toBe('idle');
    const failed = run([open(1), { type: 'send' }, { type: 'sent', estimateId: 1 }, { type: 'refused', estimateId: 1, error: { kind: 'auth', message: 'no' } }]);
    expect(run([open(1), { type: 'cancel' }], failed).phase).toBe('failed');
    const sending = run([open(1), { type: 'send' }]);
    expect(transition(sending, { type: 'cancel' })).toBe(sending);
  });

  it('refused: failed with the error, the estimate may be sent again; a refusal naming fields rejects the estimate', () => {
    const budget = { kind: 'validation', message: 'Over the budget.' } as const;
    let s = run([open(1), { type: 'send' }, { type: 'sent', estimateId: 1 }, { type: 'refused', estimateId: 1, error: budget }]);
    expect(s).toMatchObject({ phase: 'failed', error: budget, sentFor: [], rejected: [] });
    expect(canPlace(s, 1, false)).toBe(true);
    const fields: IpcError = { kind: 'validation', message: 'Bad.', fields: { From: ['in the past'] } };
    s = run([open(1), { type: 'send' }, { type: 'sent', estimateId: 1 }, { type: 'refused', estimateId: 1, error: fields }], s);
    expect(s.rejected).toEqual([1]);
  });

  it('a lost answer: checking, then unknown with a retry only when the list shows no matching order', () => {
    let s = run([open(1), { type: 'send' }, { type: 'sent', estimateId: 1 }, { type: 'lost', error: transient }, { type: 'check' }]);
    expect(s).toMatchObject({ phase: 'checking', error: transient });
    expect(placeBlockedReason(s, 1, [])).toBe('Checking the orders list…');
    // The list cannot be read: still unknown, no retry.
    s = transition(s, { type: 'check-failed', message: 'offline' });
    expect(s).toMatchObject({ phase: 'unknown', retryAllowed: false });
    expect(s.checkNote).toMatch(/could not be read \(offline\)/);
    expect(placeBlockedReason(s, 1, [])).toBe('The outcome of the last attempt is not known yet; check the orders list first.');
    // Checked again: no matching order, so a retry is allowed; cancelling the retry's dialog keeps it unknown.
    s = run([{ type: 'check' }, { type: 'not-found', baseline: true }], s);
    expect(s).toMatchObject({ phase: 'unknown', retryAllowed: true });
    expect(s.checkNote).toMatch(/^No new order matching this payload is listed/);
    expect(run([open(1), { type: 'cancel' }], s).phase).toBe('unknown');
    // Retried and created.
    s = run([open(1), { type: 'send' }, { type: 'sent', estimateId: 1 }, { type: 'created', estimateId: 1 }], s);
    expect(s).toMatchObject({ phase: 'created', retryAllowed: false, sentFor: [1, 1], placedFor: [1] });
  });

  it('a lost answer whose order the list shows: created, with the note saying so', () => {
    const s = run([open(1), { type: 'send' }, { type: 'sent', estimateId: 1 }, { type: 'lost', error: transient }, { type: 'check' },
      { type: 'created', estimateId: 1, note: 'found it' }]);
    expect(s).toMatchObject({ phase: 'created', checkNote: 'found it', placedFor: [1] });
  });

  it('a new estimate or a new connection clears the outcome but keeps what each estimate did', () => {
    const lost = run([open(1), { type: 'send' }, { type: 'sent', estimateId: 1 }, { type: 'lost', error: transient }, { type: 'check' }, { type: 'not-found', baseline: false }]);
    expect(lost.checkNote).toMatch(/most likely not created/);
    for (const type of ['estimated', 'reset'] as const) {
      expect(transition(lost, { type })).toMatchObject({ phase: 'idle', error: null, checkNote: null, retryAllowed: false, sentFor: [1] });
    }
  });
});
