import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { spendVerdictSchema } from '../../preload/contract';
import { AppError } from '../../common/errors.js';
import { SERVICE_CURRENCY, type Cost } from '../../common/money.js';
import type { HostConfirm } from '../platform/confirm';
import type { SpendStore, SpendView } from './store';

/**
 * The one spend guard. Every path in main that spends (an order, a composite, tile or mini-tile
 * download, a split batch or a time series, a retry, a watch's download) asks it first, with main's
 * own estimate of that exact request. Past the budget, at a cost it cannot read, above
 * {@link DEFAULT_CONFIRM_ABOVE_EUR} (or the policy's threshold) with no budget, or while the
 * policy's budget cannot be honoured, it goes ahead only with the analyst's consent in main's own
 * native dialog; a host without one (the browser host) is refused with an error naming the budget,
 * the month's spend and the cost. The policy's ceiling is never passed: under it a cost main cannot
 * read is refused, since no confirmation may pass the ceiling. What it allows counts as spent at
 * once (so two calls at the same time cannot both pass), and is written to the ledger when it was
 * spent. Everything is counted per account (./account.ts), not per profile.
 */

/** Main's verdict on a spend (contract `spendVerdictSchema`). */
export type SpendVerdict = z.infer<typeof spendVerdictSchema>;

/** With no budget (and no ceiling), a known cost above this many EUR still needs the analyst's consent. */
export const DEFAULT_CONFIRM_ABOVE_EUR = 50;

/** What the guard needs from the app. */
export interface SpendGuardDeps {
  store: SpendStore;
  /** The active profile's id. */
  activeProfile(): Promise<string>;
  /** The account a profile spends on (./account.ts `profileAccounts`); rejects when it cannot be read. */
  account(profileId: string): Promise<string>;
  /** This month's billing summary of the active profile's service. */
  billing(signal: AbortSignal): Promise<unknown>;
  /** Main's native question; absent in the browser host, where what needs it is refused. */
  confirm?: HostConfirm;
  /** Why the policy's budget cannot be honoured (a currency other than EUR): every spend then needs consent. */
  policyProblem?: string | null;
  /** With no budget, a known cost above this (EUR) needs consent; {@link DEFAULT_CONFIRM_ABOVE_EUR} when absent. */
  confirmAboveEur?: number | null;
  /** The month's spend may have changed (a pass given, ended or recorded, a budget set): the window reads it again. */
  changed?: () => void;
  now?: () => number;
}

/** How a caller wants a "confirm" verdict handled. */
export interface ClearOptions {
  /** Ask the analyst now (main's dialog); false: refuse, the caller asks later (a watch pauses). */
  ask: boolean;
  /** The analyst already agreed for this month (a watch resumed past its cap): a known cost past the budget goes ahead; an unknown one never, nor any while the policy's budget cannot be honoured, and the policy ceiling always applies. */
  agreed?: boolean;
}

/** A pass as a download job stores it (the queue's `DownloadJob.pass`). */
export interface JobPass {
  /** The live pass of the run that cleared it; a job brought back at start carries one of an earlier run. */
  id: string;
  /** The profile the job was cleared under: charged to it, sent with its client and key. */
  profileId: string;
  /** Main's estimate of the whole job, EUR; null when its cost was not known. */
  costEur: number | null;
  /** When it was cleared (ISO 8601). */
  at: string;
  /** What was cleared ("This composite download"), for the ledger. */
  what: string;
}

/** What the guard reads of a download job: its id and the pass stored with it. */
export interface PassedJob {
  id: string;
  pass?: JobPass;
  /** Attempts (or batch parts) the service charged under that pass. */
  charged?: number;
}

/** An allowed spend: counts as spent until it is recorded (it was spent) or released (it was not). */
export interface SpendPass {
  readonly verdict: SpendVerdict;
  /** What a download job stores with itself: the profile it is charged to, the amount, when it was cleared. */
  readonly stored: JobPass;
  /** Writes the cost to the ledger (the service charged it) and ends the reservation. */
  spent(): Promise<void>;
  /** Ends the reservation without recording (nothing was charged); nothing while a download job is sent under it (the job's end ends it). */
  release(): void;
}

const eur = (n: number): string => `${n.toFixed(2)} ${SERVICE_CURRENCY}`;

/** The error of a spend the guard refused: its verdict's reason, with the verdict's figures. */
export class SpendRefusedError extends AppError<'validation'> {
  constructor(readonly verdict: SpendVerdict, message: string) {
    // Not a field's fault: the message names the budget, the month's spend and the cost.
    super('validation', message);
    this.name = 'SpendRefusedError';
  }
}

/** What a verdict says, in words: "… costs X; spent this month Y; budget Z". */
function figures(v: SpendView, cost: Cost): string {
  const what = cost.state === 'known' ? `costs ${eur(cost.eur)}` : `has an unknown cost (${cost.reason})`;
  const budget = v.budgetEur === null ? 'no monthly budget' : `the monthly budget is ${eur(v.budgetEur)}`;
  return `${what}; spent this month (${v.month}) ${eur(v.spentEur)}; ${budget}`;
}

/** The spend guard (see the module comment). */
export class SpendGuard {
  /** What passes allow and have not ended, per account. */
  private readonly reserved = new Map<string, number>();
  private readonly jobs = new Map<string, SpendPass>();
  /** Passes a job is being sent under: only the job's charge or end ends them, not the caller's release (a watch run that stopped while the job was with the service). */
  private readonly sending = new WeakSet<SpendPass>();
  /** Passes of this run not yet ended, by their stored id: a job queued with one is sent under it. */
  private readonly open = new Map<string, SpendPass>();
  private chain: Promise<unknown> = Promise.resolve();
  /** The profile-keyed entries of earlier versions, moved to their accounts once per start. */
  private legacy: Promise<void> | null = null;

  constructor(private readonly deps: SpendGuardDeps) {}

  /**
   * The account of a profile, with its entries of the profile-keyed schema moved to it (the first
   * call moves every profile's that can be read, so an account's month is whole before it is used).
   */
  private async accountOf(profileId: string): Promise<string> {
    const { store } = this.deps;
    this.legacy ??= (async () => {
      for (const id of store.legacyProfiles()) {
        const account = await this.deps.account(id).catch(() => null);
        if (account !== null) store.adopt(id, account);
      }
    })();
    await this.legacy;
    const account = await this.deps.account(profileId);
    store.adopt(profileId, account);
    return account;
  }

  /** The month's spend of the active profile's account plus a cost (0: none), and what main would do about spending it. */
  async verdict(cost: Cost, signal: AbortSignal, profileId?: string): Promise<SpendVerdict> {
    const id = profileId ?? (await this.deps.activeProfile());
    return this.judge(cost, signal, id, await this.accountOf(id));
  }

  private async judge(cost: Cost, signal: AbortSignal, profileId: string, account: string): Promise<SpendVerdict> {
    const known = cost.state === 'known' ? cost.eur : 0;
    const view = await this.deps.store.view(account, known, () => this.deps.billing(signal), this.reserved.get(account) ?? 0, profileId);
    const ceiling = view.ceilingEur;
    const base = { ...view, costKnown: cost.state === 'known', costNote: cost.state === 'known' ? null : cost.reason };
    const f = figures(view, cost);
    if (ceiling !== null && cost.state !== 'known') {
      return { ...base, decision: 'refused', reason: `This ${f}: under your organisation's monthly ceiling of ${eur(ceiling)} a cost Swath cannot read is refused, since no confirmation may pass the ceiling.` };
    }
    if (ceiling !== null && view.afterEur > ceiling + 1e-9) {
      return { ...base, decision: 'refused', reason: `This ${f}: it would go past your organisation's monthly ceiling of ${eur(ceiling)}, which cannot be passed.` };
    }
    if (this.deps.policyProblem) return { ...base, decision: 'confirm', reason: `This ${f}. ${this.deps.policyProblem}` };
    if (cost.state !== 'known') return { ...base, decision: 'confirm', reason: `This ${f}: spending an unknown amount needs your confirmation of this spend itself (consent to go past a limit for the month does not cover it).` };
    if (view.overBudget) return { ...base, decision: 'confirm', reason: `This ${f}: it would take the month to ${eur(view.afterEur)}, past the budget.` };
    const above = this.deps.confirmAboveEur ?? DEFAULT_CONFIRM_ABOVE_EUR;
    if (view.budgetEur === null && cost.eur > above + 1e-9) {
      return { ...base, decision: 'confirm', reason: `This ${f}: with no monthly budget, a spend above ${eur(above)} needs your confirmation.` };
    }
    return { ...base, decision: 'ok', reason: `This ${f}${view.budgetEur === null ? '' : `: within the budget (${eur(view.afterEur)} after it)`}.` };
  }

  /**
   * Decides on spending `cost` for `what` ("This order"), asking the analyst where the verdict says
   * so; resolves with a pass that holds the cost as spent, or rejects with a {@link SpendRefusedError}
   * (or a 'cancelled' AppError when the analyst said no). One decision at a time.
   */
  clear(cost: Cost, what: string, signal: AbortSignal, options: ClearOptions): Promise<SpendPass> {
    const run = this.chain.then(() => this.decide(cost, what, signal, options));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async decide(cost: Cost, what: string, signal: AbortSignal, options: ClearOptions): Promise<SpendPass> {
    const profileId = await this.deps.activeProfile();
    const account = await this.accountOf(profileId);
    const v = await this.judge(cost, signal, profileId, account);
    const refuse = (why: string): never => {
      throw new SpendRefusedError(v, `${what} was not done: ${v.reason}${why}`);
    };
    if (v.decision === 'refused') refuse('');
    // A month's consent covers going past a known limit by a known amount, never an amount nobody
    // knows, nor a policy Swath cannot honour (the consent never reached past the organisation's ceiling).
    if (v.decision === 'confirm' && !(options.agreed && v.costKnown && !this.deps.policyProblem)) {
      if (!options.ask) refuse(v.costKnown ? ' Resume it and confirm to go on.' : ' Download it yourself to confirm its cost.');
      if (!this.deps.confirm) refuse(" Going on needs your confirmation in Swath's own dialog, which this window does not have; raise the budget in the desktop app instead.");
      const agreed = await this.deps.confirm!({
        title: v.overBudget ? 'Spend past the budget?' : 'Confirm this spend?',
        message: `${what}: ${v.costKnown ? `it costs ${eur(v.costEur)}` : 'its cost is not known'}. Go ahead?`,
        detail: v.reason,
        confirmLabel: 'Spend',
      });
      if (!agreed) throw new AppError('cancelled', `${what} was not done: you chose not to spend ${v.overBudget ? 'past the budget' : 'it'}.`);
    }
    return this.reserve(account, profileId, cost, what, v);
  }

  private reserve(account: string, profileId: string, cost: Cost, what: string, verdict: SpendVerdict): SpendPass {
    const amount = cost.state === 'known' ? cost.eur : 0;
    this.reserved.set(account, (this.reserved.get(account) ?? 0) + amount);
    this.deps.changed?.();
    const stored: JobPass = { id: randomUUID(), profileId, costEur: cost.state === 'known' ? cost.eur : null, at: new Date((this.deps.now ?? Date.now)()).toISOString(), what };
    let open = true;
    const end = (): boolean => {
      if (!open) return false;
      open = false;
      this.open.delete(stored.id);
      this.reserved.set(account, Math.max(0, (this.reserved.get(account) ?? 0) - amount));
      return true;
    };
    const pass: SpendPass = {
      verdict,
      stored,
      spent: async () => {
        if (!end()) return;
        // The service's own figure may differ from the estimate: read its billing again next time.
        this.deps.store.forgetSummary(account);
        if (amount > 0) await this.deps.store.record(account, amount, what, profileId);
        this.deps.changed?.();
      },
      release: () => {
        if (this.sending.has(pass)) return;
        // Whether the service charged anything (a lost answer), its billing says: read it again next time.
        if (!end()) return;
        this.deps.store.forgetSummary(account);
        this.deps.changed?.();
      },
    };
    this.open.set(stored.id, pass);
    return pass;
  }

  /** Records what Swath spent outside a pass (a watch's download queued by an earlier run). */
  async record(profileId: string, costEur: number, what: string): Promise<void> {
    const account = await this.accountOf(profileId).catch(() => null);
    // Spent is spent: a profile whose account cannot be read now keeps the entry until it can.
    if (account === null) await this.deps.store.recordForProfile(profileId, costEur, what);
    else {
      this.deps.store.forgetSummary(account);
      await this.deps.store.record(account, costEur, what, profileId);
    }
    this.deps.changed?.();
  }

  /** Keeps a download's pass until the job ends ({@link jobEnded}). */
  holdForJob(jobId: string, pass: SpendPass): void {
    const held = this.jobs.get(jobId);
    if (held === pass) return;
    if (held) {
      this.sending.delete(held);
      held.release();
    }
    this.jobs.set(jobId, pass);
  }

  /**
   * Before a job's first POST of this run (the queue asks): the pass it was queued with, while that
   * pass is open. A job brought back at start carries a pass of an earlier run: it is decided again,
   * here, under the profile stored with it and for the amount stored with it, without a dialog (none
   * can be shown at start); what needs consent or is refused fails the job with the reason, and the
   * analyst's Retry asks. Decided again rather than recorded: nothing was charged for it yet (a job
   * whose POST was out fails at start instead, see the queue), and the month, the budget and the
   * policy it was cleared against may have changed since; a batch one of whose parts was charged
   * then had its whole estimate recorded with that part, so it is decided at 0 EUR (nothing is
   * written again). A job whose profile is no longer the active
   * one is refused with that reason (it is never charged to another profile).
   */
  async clearJob(job: PassedJob, signal: AbortSignal): Promise<JobPass> {
    const stored = job.pass;
    const what = stored?.what ?? 'This download';
    const active = await this.deps.activeProfile();
    if (stored && stored.profileId !== active) {
      throw new AppError('validation', `${what} was not sent, and nothing was charged: it was cleared under the profile "${stored.profileId}", and "${active}" is the active profile now. Switch back to it and Retry, or Retry under this profile (decided again for it).`);
    }
    const held = this.jobs.get(job.id) ?? (stored ? this.open.get(stored.id) : undefined);
    if (held && this.open.has(held.stored.id)) {
      this.jobs.set(job.id, held);
      this.sending.add(held);
      return held.stored;
    }
    // A batch whose first charged part wrote the whole job's estimate to the ledger then: the rest is in that line.
    const recorded = stored && stored.costEur !== null && (job.charged ?? 0) > 0;
    const cost: Cost = recorded ? { state: 'known', eur: 0 } : stored && stored.costEur !== null ? { state: 'known', eur: stored.costEur } : { state: 'unknown', reason: stored ? 'its cost was not known when it was queued' : 'it was queued by an earlier version, without a stored estimate' };
    const again = `${what} (queued in an earlier run)`;
    const pass = await this.clear(cost, again, signal, { ask: false }).catch((e: unknown) => {
      if (!(e instanceof SpendRefusedError)) throw e;
      throw new SpendRefusedError(e.verdict, `${again} was not sent: ${e.verdict.reason} Retry it to decide again (Swath asks where it must).`);
    });
    if (pass.stored.profileId !== active) {
      pass.release();
      throw new AppError('validation', `${what} was not sent: the active profile changed while it was being cleared. Retry it.`);
    }
    this.jobs.set(job.id, pass);
    this.sending.add(pass);
    return pass.stored;
  }

  /**
   * The service charged an attempt of a job (it answered with the file): the job's pass is written to
   * the ledger then, whether or not the file then arrives whole. A split batch's or series' pass holds
   * main's estimate of the whole job: its first charged part records all of it (counted whole, never
   * less than was charged); the parts after it are in that line.
   */
  async jobCharged(job: PassedJob): Promise<void> {
    const pass = this.jobs.get(job.id);
    if (pass) {
      await pass.spent();
      return;
    }
    // Not cleared in this run (cannot happen through the queue): recorded against the stored pass.
    const stored = job.pass;
    if (stored && stored.costEur !== null && stored.costEur > 0) await this.record(stored.profileId, stored.costEur, stored.what);
  }

  /** A job changed state: a finished download is recorded (unless its charge was already), a failed or cancelled one releases its pass. */
  jobEnded(job: { id: string; state: string }): void {
    const pass = this.jobs.get(job.id);
    if (!pass || !['done', 'failed', 'cancelled'].includes(job.state)) return;
    this.jobs.delete(job.id);
    this.sending.delete(pass);
    if (job.state === 'done') void pass.spent().catch(() => undefined);
    else pass.release();
  }

  /**
   * Sets or clears the active profile's budget. Lowering it (or setting a first one) needs nothing;
   * raising or clearing it needs the analyst's consent in main's dialog (refused without one).
   */
  async setBudget(budgetEur: number | null, signal: AbortSignal): Promise<SpendView> {
    const id = await this.deps.activeProfile();
    const account = await this.accountOf(id);
    const before = this.deps.store.ownBudget(account);
    const loosens = before !== null && (budgetEur === null || budgetEur > before);
    if (loosens) {
      const change = budgetEur === null ? `clear the monthly budget of ${eur(before)}` : `raise the monthly budget from ${eur(before)} to ${eur(budgetEur)}`;
      if (!this.deps.confirm) {
        throw new AppError('validation', `This window cannot ${change}: that needs your confirmation in Swath's own dialog. Change it in the desktop app.`, { fields: { budgetEur: ['Raising or clearing the budget needs confirmation in the desktop app.'] } });
      }
      const agreed = await this.deps.confirm({ title: 'Change the monthly budget?', message: `${change.charAt(0).toUpperCase()}${change.slice(1)}?`, detail: 'More can then be spent this month without asking.', confirmLabel: budgetEur === null ? 'Clear budget' : 'Raise budget' });
      if (!agreed) throw new AppError('cancelled', `The monthly budget stays at ${eur(before)}.`);
    }
    await this.deps.store.setBudget(account, budgetEur);
    this.deps.changed?.();
    return this.deps.store.view(account, 0, () => this.deps.billing(signal), this.reserved.get(account) ?? 0, id);
  }

  /**
   * Asks the analyst, in main's own dialog, to agree to what money or an order cannot undo by itself:
   * loosening a limit (raising or clearing a watch's cap, a watch past its cap or the budget for the
   * month) or cancelling an order. Resolves when agreed; rejects with `refused` as a 'cancelled'
   * error when the analyst says no, and as a 'validation' error where the host has no dialog.
   */
  async consent(question: { title: string; message: string; detail: string; confirmLabel: string }, refused: string): Promise<void> {
    if (!this.deps.confirm) throw new AppError('validation', `${refused} That needs your confirmation in Swath's own dialog, which this window does not have.`);
    if (!(await this.deps.confirm(question))) throw new AppError('cancelled', refused);
  }
}
