/** The spend guard, its store (budgets and ledger) and main's own estimates. */
export { BILLING_FRESH_MS, SpendStore, spendFromBilling, monthOf, type SpendView } from './store';
export { SpendGuard, SpendRefusedError, type ClearOptions, type SpendGuardDeps, type SpendPass, type SpendVerdict } from './guard';
export { ESTIMATE_FRESH_MS, Estimator, type DownloadToEstimate, type EstimateClient } from './estimates';
export { spendHandlers, type SpendChannel } from './handlers';
