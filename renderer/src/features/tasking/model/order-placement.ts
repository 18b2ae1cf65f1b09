import type { IpcError } from '../../../../../preload/contract';

/**
 * Order placement as a pure state machine: no Pinia, no bridge. The tasking store feeds it events
 * (an estimate froze a payload, the analyst opened or cancelled the confirmation, the create was
 * sent, answered, refused or lost, the orders list was checked) and reads `canPlace` /
 * `placeBlockedReason` from it. Each estimate has an id; an order is placed from one estimate at
 * most once, and sent again only after a check of the orders list found that the last attempt
 * created nothing.
 */

/** Where "Place order" stands. */
export type CreatePhase =
  /** Nothing sent for the current estimate. */
  | 'idle'
  /** The confirmation dialog is open. */
  | 'confirming'
  /** The create request is on its way. */
  | 'sending'
  /** The create failed in a way that leaves its outcome unknown; the orders list is being checked. */
  | 'checking'
  /** The order exists (answered, or found in the list after an unknown outcome). */
  | 'created'
  /** The outcome is still unknown: see `checkNote`; retry only when `retryAllowed`. */
  | 'unknown'
  /** The service refused the order (nothing was created). */
  | 'failed';

export interface PlacementState {
  readonly phase: CreatePhase;
  /** The last create error (refused, or of unknown outcome). */
  readonly error: IpcError | null;
  readonly checkNote: string | null;
  /** After an unknown outcome, set once the list shows no matching order. */
  readonly retryAllowed: boolean;
  /** Estimate ids for which a create went out and was not refused. */
  readonly sentFor: readonly number[];
  /** Estimate ids that produced an order. */
  readonly placedFor: readonly number[];
  /** Estimate ids whose payload the service refused field by field: they need a new estimate. */
  readonly rejected: readonly number[];
}

export type PlacementEvent =
  /** A new estimate was frozen: a new order starts (what happened to the previous one stays in the orders list). */
  | { type: 'estimated' }
  /** "Place order": opens the confirmation (only when placing is allowed; see `canPlace`). */
  | { type: 'open'; estimateId: number | null; stale: boolean }
  /** The confirmation is closed without sending. */
  | { type: 'cancel' }
  /** The analyst confirmed: the orders list is read first, then the create goes out. */
  | { type: 'send' }
  /** The estimate changed (or went stale) while the list was read: nothing was sent. */
  | { type: 'abandon' }
  /** The create for this estimate is going out. */
  | { type: 'sent'; estimateId: number }
  /** The order exists (answered, or found in the list; `note` says so). */
  | { type: 'created'; estimateId: number; note?: string }
  /** The create failed in a way that leaves its outcome unknown. */
  | { type: 'lost'; error: IpcError }
  /** The orders list is being read to learn the outcome. */
  | { type: 'check' }
  /** The list could not be read: still unknown, no retry. */
  | { type: 'check-failed'; message: string }
  /** The list shows no matching order: a retry is allowed. `baseline`: a list from before sending was read. */
  | { type: 'not-found'; baseline: boolean }
  /** The service refused the order: nothing was created. */
  | { type: 'refused'; estimateId: number; error: IpcError }
  /** The connection changed. */
  | { type: 'reset' };

export const initialPlacement = (): PlacementState => ({
  phase: 'idle', error: null, checkNote: null, retryAllowed: false, sentFor: [], placedFor: [], rejected: [],
});

/** Whether "Place order" may be pressed for the current estimate (`estimateId`; null: none). */
export function canPlace(s: PlacementState, estimateId: number | null, stale: boolean): boolean {
  return placeBlockedReason(s, estimateId, stale ? [''] : []) === null;
}

/** Why "Place order" is disabled, for the button's note; null when it may be pressed. */
export function placeBlockedReason(s: PlacementState, estimateId: number | null, staleReasons: readonly string[]): string | null {
  if (estimateId === null) return 'Estimate first: an order is placed from its estimate.';
  if (staleReasons.length) return staleReasons[0]!;
  if (s.phase === 'sending') return 'Placing the order…';
  if (s.phase === 'checking') return 'Checking the orders list…';
  if (s.placedFor.includes(estimateId)) return 'This estimate has been ordered. Estimate again to place another order.';
  if (s.sentFor.includes(estimateId) && !s.retryAllowed) return 'The outcome of the last attempt is not known yet; check the orders list first.';
  return null;
}

/** The next state; an event that does not apply in the current state leaves it unchanged. */
export function transition(s: PlacementState, e: PlacementEvent): PlacementState {
  switch (e.type) {
    case 'estimated':
      return { ...s, phase: 'idle', error: null, checkNote: null, retryAllowed: false };
    case 'open':
      return canPlace(s, e.estimateId, e.stale) ? { ...s, phase: 'confirming' } : s;
    case 'cancel':
      if (s.phase !== 'confirming') return s;
      return { ...s, phase: s.retryAllowed ? 'unknown' : s.error ? 'failed' : 'idle' };
    case 'send':
      return s.phase === 'confirming' ? { ...s, phase: 'sending', error: null, checkNote: null } : s;
    case 'abandon':
      return s.phase === 'sending' ? { ...s, phase: 'idle' } : s;
    case 'sent':
      return s.phase === 'sending' ? { ...s, sentFor: [...s.sentFor, e.estimateId], retryAllowed: false } : s;
    case 'created':
      return { ...s, phase: 'created', retryAllowed: false, placedFor: [...s.placedFor, e.estimateId], checkNote: e.note ?? s.checkNote };
    case 'lost':
      return { ...s, error: e.error };
    case 'check':
      return { ...s, phase: 'checking' };
    case 'check-failed':
      return {
        ...s, phase: 'unknown', retryAllowed: false,
        checkNote: `Whether the order was created is not known, and the orders list could not be read (${e.message}). Check again before retrying.`,
      };
    case 'not-found':
      return {
        ...s, phase: 'unknown', retryAllowed: true,
        checkNote: e.baseline
          ? 'No new order matching this payload is listed, so it was not created. You may place it again.'
          : 'No order matching this payload is listed (the list before sending could not be read), so it was most likely not created. You may place it again.',
      };
    case 'refused':
      return {
        ...s,
        phase: 'failed',
        error: e.error,
        sentFor: s.sentFor.filter((x) => x !== e.estimateId),
        // A payload the service refused field by field needs a new estimate; a refusal that names no field
        // (main's spend guard: over the budget) does not, once the budget allows it.
        rejected: e.error.kind === 'validation' && e.error.fields ? [...s.rejected, e.estimateId] : s.rejected,
      };
    case 'reset':
      return { ...s, phase: 'idle', error: null, checkNote: null, retryAllowed: false };
  }
}
