/** Profiles: service profiles whose API keys live only in the OS keychain, with clear errors when it is unavailable. */
export { createKeytarBackend, MemoryKeychainBackend, type KeychainBackend } from './backend.js';
export { Keychain, KEYCHAIN_SERVICE, type KeychainOptions } from './keychain.js';
export {
  KeychainError,
  classifyKeychainError,
  keychainErrorFor,
  scrub,
  type ClassifyContext,
  type KeychainProblem,
} from './errors.js';
export {
  ProfileStore,
  KeyOriginError,
  DEMO_PROFILE_ID,
  DEMO_PROFILE_NAME,
  PROFILES_FILE_NAME,
  type KeyProbe,
  type KeyProbeOutcome,
  type KeyTestResult,
  type ProfileInput,
  type ProfileListing,
  type ProfilePatch,
  type ProfileStoreOptions,
  type ProfileSummary,
} from './profile-store.js';
export { checkBaseUrl, keyReasons, nameReasons, MAX_KEY_LENGTH, MAX_NAME_LENGTH, type BaseUrlCheck } from './validation.js';
export { httpKeyProbe } from './probe.js';
export { profileHandlers, type ProfileChannel, type ProfileHandlerDeps } from './handlers.js';
