/** The service client: transport, retry, limits, specification discovery and operations. */
export { ServiceClient, BUILT_FOR_CONTRACT_VERSION } from './client.js';
export type {
  ClientCallOptions, ClientConnectionState, ConnectResult, OpenCallInput, OpenOperation, OpenOperationKey, OperationInfo,
  ServiceClientOptions, SpecSummary,
} from './client.js';
export { PAID_BODY_FIELDS, canonicalBody, canonicalPayload, requireCanonical, type PaidBodyKind } from './canonical-body.js';
export { accountLimits, type AccountLimits } from './account-limits.js';
export { ApiError, ServiceCodes, classifyFailure, validationFailure } from './errors.js';
export type { ApiErrorKind, FieldErrors } from './errors.js';
export { RedirectRefusedError, createNodeFetch, refuseRedirects } from './http.js';
export type { HttpFetch, NodeFetchOptions, NodeHttpFetch } from './http.js';
export { DEFAULT_CONCURRENCY, Limiter } from './limiter.js';
export { DEFAULT_RETRY, abortableSleep, parseRetryAfter, withRetry } from './retry.js';
export type { RetryPolicy } from './retry.js';
export { contractNoticeFor, findOperation, parseSpec, specCacheFile, toJsonSchema } from './spec.js';
export type { ContractNotice, DiscoveredSpec, JsonSchema, ParameterLocation, SpecDrift, SpecOperation } from './spec.js';
export { diffSpecs } from './spec-diff.js';
export type { FieldChange, OperationRef, SpecDiff } from './spec-diff.js';
export {
  isKeyFieldName, isKeySchema, keyFieldsOfSchema, redactSecretsDeep, redactServiceData,
} from './redact.js';
export { Transport } from './transport.js';
export { contentDispositionFileName } from './content-disposition.js';
export type { AttemptEvent, BinaryResult, CallOptions, RequestSpec, TransportOptions } from './transport.js';
export * from './types.js';
export {
  isContractEpsg, validateComposite, validateCompositeAvailable, validateCompositeEstimate, validateGeographyComposite,
  validateOrder, validateSearchAvailable, validateTile, validateYearMonth,
} from './validation.js';
export type { ValidationContext, ValidationResult } from './validation.js';
