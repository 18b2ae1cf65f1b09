import { z } from 'zod';

/** Schemas of the spend guard's channels: the month's spend against the budget, and main's verdict on a spend. */

/** Spend of the current month against the active profile's budget. */
export const spendSchema = z.object({
  profileId: z.string(),
  month: z.string(),
  budgetEur: z.number().nullable(),
  /** Spent so far this month, EUR. */
  spentEur: z.number(),
  /** Where `spentEur` comes from: the service's billing answer, or Swath's own ledger of what it acted on. */
  source: z.enum(['billing', 'ledger']),
  /** Why the billing answer was not used (when source is 'ledger'). */
  sourceNote: z.string().nullable(),
  /** The cost asked about (0 when none). */
  costEur: z.number(),
  /** spent + cost. */
  afterEur: z.number(),
  /** The cost would take the month past the budget. */
  overBudget: z.boolean(),
  /** The admin policy's monthly ceiling (EUR), which no confirmation passes; null when none. */
  ceilingEur: z.number().nullable(),
});

/**
 * Main's verdict on a spend (an estimate, an order, a download): the month's spend against the
 * budget plus this cost, and what main will do when asked to spend it. `ok`: it goes ahead;
 * `confirm`: only after the analyst agrees in main's own native dialog (refused where the host has
 * none, the browser host); `refused`: not at all (the policy's ceiling).
 */
export const spendVerdictSchema = spendSchema.extend({
  /** False when the cost could not be read (then `costEur` is 0 and `costNote` says why). */
  costKnown: z.boolean(),
  costNote: z.string().nullable(),
  decision: z.enum(['ok', 'confirm', 'refused']),
  /** The decision in words, naming the budget, the month's spend and the cost. */
  reason: z.string(),
});

/** The spend guard's channels (spread into the contract's channel map). */
export const spendChannels = {
  /** This month's spend against the budget, plus a cost about to be incurred, and main's verdict on spending it. */
  'spend:get': { request: z.strictObject({ costEur: z.number().nonnegative().optional() }), response: spendVerdictSchema },
  /**
   * Sets (or clears, with null) the active profile's monthly budget in EUR. Raising or clearing it
   * needs the analyst's consent in main's own native dialog (refused where there is none, the
   * browser host); above the policy's ceiling it is refused.
   */
  'spend:set-budget': { request: z.strictObject({ budgetEur: z.number().positive('The budget must be above 0.').nullable() }), response: spendSchema },
} as const;

/** The spend guard's events (spread into the contract's event map). */
export const spendEvents = {
  /** The month's spend may have changed (a spend allowed, ended or recorded, a budget set): a view showing it asks `spend:get` again. */
  'spend:changed': z.object({}),
} as const;
