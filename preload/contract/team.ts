import { z } from 'zod';
import { jsonRecord } from './bounds';
import { noRequest } from './channel';
import { libraryEntrySchema } from './library';

/**
 * Schemas of the team library's channels: where the team catalog stands, the analyst's catalog
 * credentials (into main's keychain; never read back), "does the team already own this?" before a
 * purchase, and using a teammate's copy instead of buying.
 */

const kindSchema = z.enum(['composite', 'tile', 'minitile']);

/** Where the team library stands, for the status line and Settings. */
export const teamStatusSchema = z.object({
  /** off: the policy names no team catalog; no-credentials: the analyst has not entered a role; online; unreachable. */
  state: z.enum(['off', 'no-credentials', 'online', 'unreachable']),
  /** The catalog URL, share folder and read URL as the policy names them (never a password). */
  catalogUrl: z.string().nullable(),
  sharePath: z.string().nullable(),
  readUrl: z.string().nullable(),
  /** The analyst's catalog role (the password stays in the keychain). */
  role: z.string().nullable(),
  /** unreachable: since when (ISO 8601 UTC) and why. */
  since: z.string().nullable(),
  reason: z.string().nullable(),
  /** Registrations waiting for the catalog. */
  pending: z.number().int().nonnegative(),
});

/** A raster the team owns that answers a purchase about to be made. */
export const teamMatchSchema = z.object({
  id: z.string(),
  acquiredBy: z.string(),
  acquiredAt: z.string(),
  date: z.string().nullable(),
  model: z.string().nullable(),
  bands: z.array(z.string()),
  resolution: z.number().nullable(),
  epsg: z.number().nullable(),
  costEur: z.number().nullable(),
  /** True when it is what was asked for in every respect. */
  exact: z.boolean(),
  /** What differs, in words. */
  differences: z.array(z.string()),
  /** Whether this machine can open it from the share now. */
  available: z.boolean(),
  /** Whether main can read it over the policy's read URL (preview on the map, or copy) when the share is not reachable. */
  readable: z.boolean(),
});

/** Main's answer to "does the team already own this?". */
export const teamCheckSchema = z.object({
  /** off / unchecked (the catalog could not be asked: `reason`) / none / owned (see `matches`) / claimed (a teammate is buying it now). */
  state: z.enum(['off', 'unchecked', 'none', 'owned', 'claimed']),
  matches: z.array(teamMatchSchema),
  claim: z.object({ holder: z.string(), expiresAt: z.string() }).nullable(),
  reason: z.string().nullable(),
});

/** The team library's channels (spread into the contract's channel map). */
export const teamChannels = {
  /** Where the team library stands. */
  'team:status': { request: noRequest, response: teamStatusSchema },
  /** Stores the analyst's catalog role and password in the OS keychain (main only); null clears them. */
  'team:set-credentials': {
    request: z.strictObject({
      credentials: z
        .strictObject({
          role: z.string().trim().min(1, 'The role is required.').max(63, 'A PostgreSQL role name has at most 63 characters.').regex(/^[A-Za-z_][A-Za-z0-9_$.-]*$/, 'The role may hold letters, digits, _ $ . and -, and starts with a letter or _.'),
          password: z.string().min(1, 'The password is required.').max(1000, 'The password is too long.'),
        })
        .nullable(),
    }),
    response: teamStatusSchema,
  },
  /** Does the team already own this purchase (a composite, tile or mini-tile request), or is a teammate buying it now? */
  'team:check': { request: z.strictObject({ kind: kindSchema, request: jsonRecord() }), response: teamCheckSchema },
  /** Waits (cancellable) for the teammate buying this now to register their copy, then answers as `team:check`. */
  'team:wait': { request: z.strictObject({ kind: kindSchema, request: jsonRecord() }), response: teamCheckSchema },
  /**
   * Uses a teammate's copy instead of buying: `link` adds the file on the share to the library as it
   * is; `copy` copies it into the download folder first (sha256 checked). Costs nothing.
   */
  'team:use-copy': {
    request: z.strictObject({ id: z.string().min(1, 'id is required.').max(100), mode: z.enum(['link', 'copy']) }),
    response: z.object({ libraryId: z.string(), path: z.string() }),
  },
  /**
   * Previews a teammate's raster (an id from `team:check`) on the map without copying it: main reads
   * it over the policy's read URL; the entry's id is the raster id the map opens, its path the URL.
   */
  'team:preview': { request: z.strictObject({ id: z.string().min(1, 'id is required.').max(100, 'id is at most 100 characters.') }), response: libraryEntrySchema },
} as const;

/** The team library's events. */
export const teamEvents = {
  /** The team library's state changed (reachable again, a registration sent, credentials set). */
  'team:status': teamStatusSchema,
} as const;
