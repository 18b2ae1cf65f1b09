/** The spend guard and its store (budgets and ledger); main's own estimates are in ../downloads/estimates.ts. */
export { BILLING_FRESH_MS, LEDGER_KEEP_DAYS, SPEND_FILE, SpendStore, spendFromBilling, monthOf, pastPrefix, type SpendView } from './store';
export { DEFAULT_CONFIRM_ABOVE_EUR, SpendGuard, SpendRefusedError, type ClearOptions, type JobPass, type PassedJob, type SpendGuardDeps, type SpendPass, type SpendVerdict } from './guard';
export { spendHandlers, type SpendChannel } from './handlers';
export { keyFingerprint, profileAccounts, spendAccount, type SpendProfiles } from './account';
