/** The spend guard, its store (budgets and ledger) and main's own estimates, the guard's source of costs (estimator.ts). */
export { BILLING_FRESH_MS, LEDGER_KEEP_DAYS, SPEND_FILE, SpendStore, spendFromBilling, monthOf, pastPrefix, type SpendView } from './store';
export { DEFAULT_CONFIRM_ABOVE_EUR, SpendGuard, SpendRefusedError, type ClearOptions, type JobPass, type PassedJob, type SpendGuardDeps, type SpendPass, type SpendVerdict } from './guard';
export { spendHandlers, type SpendChannel } from './handlers';
export { ESTIMATE_FRESH_MS, Estimator, automaticOrderCost, type DownloadToEstimate, type EstimateClient } from './estimator.js';
export { estimateBatch, readEstimate, sumEstimates, type AreaCreditEstimate, type BatchEstimate, type EstimateBatchOptions, type EstimateOne, type PartEstimate } from './batch-estimate.js';
export { keyFingerprint, profileAccounts, spendAccount, type SpendProfiles } from './account';
