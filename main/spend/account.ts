import { createHash } from 'node:crypto';

/**
 * The account a spend is counted on: the service's base URL and a fingerprint of the API key, so
 * two profiles that hold the same key for the same service share one month, one budget and one
 * ledger. The fingerprint is a truncated SHA-256 of the key (with a label of its own, so it is no
 * hash of the key alone): it names the key without revealing it, and is the only form of it the
 * spend tables hold.
 */

/** What the spend guard reads of a profile (main/profiles `ProfileStore`). */
export interface SpendProfiles {
  /** The profile's service and key (main only; null without one), in one read of the keychain per check. */
  spendIdentity(id: string): Promise<{ id: string; baseUrl: string | null; builtIn: boolean; key: string | null }>;
}

/** Hex characters of the key's fingerprint (96 bits). */
const FINGERPRINT_HEX = 24;

/** The base URL as an account names it: origin and path, without a trailing slash. */
function serviceOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The fingerprint of an API key: never the key, never reversible to it. */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update('swath spend account\0').update(key.trim()).digest('hex').slice(0, FINGERPRINT_HEX);
}

/** The account of a service and a key: `<base URL> key:<fingerprint>`. */
export function spendAccount(baseUrl: string, key: string): string {
  return `${serviceOf(baseUrl)} key:${keyFingerprint(key)}`;
}

/**
 * The account of a profile: its service and key; a built-in profile (the demo service, whose port
 * and key change every run) is an account of its own, and so is a profile without a key (it cannot
 * spend until it has one). A key main cannot read fails the lookup: nothing is decided without it.
 */
export function profileAccounts(profiles: SpendProfiles): (profileId: string) => Promise<string> {
  return async (profileId) => {
    const profile = await profiles.spendIdentity(profileId);
    if (profile.builtIn) return `builtin:${profile.id}`;
    return profile.key === null || profile.baseUrl === null ? `profile:${profile.id}` : spendAccount(profile.baseUrl, profile.key);
  };
}
