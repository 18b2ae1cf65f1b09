import { z } from 'zod';
import { MAX_NAME, MAX_SECRET, MAX_URL, boundedText } from './bounds';
import { byId, channel, id, noRequest } from './channel';

/** Schemas of the profiles' channels (profiles:*): profiles and their keys, which never leave main. */

/** What the renderer may know about a profile: whether a key is set and its last 4 characters, never the key. */
export const profileSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string().nullable(),
  builtIn: z.boolean(),
  active: z.boolean(),
  keySet: z.boolean(),
  keyLast4: z.string().nullable(),
  /** The origin the key was entered (or confirmed) for; null without a key. */
  keyOrigin: z.string().nullable(),
  /** The base URL moved to another origin: the key is not sent until it is entered again or main's dialog confirms. */
  keyNeedsConfirm: z.boolean(),
});

/** Response of `profiles:list`; keychainError explains what is missing when the OS keychain is unavailable. */
export const profileListingSchema = z.object({
  profiles: z.array(profileSummarySchema),
  activeProfileId: z.string(),
  keychainError: z.object({ problem: z.string(), message: z.string() }).nullable(),
});

/** Outcome of testing a stored key against account info. */
export const keyTestSchema = z.object({
  status: z.enum(['ok', 'auth', 'network']),
  message: z.string(),
  httpStatus: z.number().int().optional(),
});

/** The profiles' channels (spread into the contract's channel map). */
export const profileChannels = {
  /** Profiles with key presence and last 4 characters only. */
  'profiles:list': channel(noRequest, profileListingSchema),
  /** Creates a profile; the optional key goes straight to the OS keychain. */
  'profiles:create': channel(z.strictObject({ name: boundedText(MAX_NAME), baseUrl: boundedText(MAX_URL), key: boundedText(MAX_SECRET).optional() }), profileSummarySchema),
  /** Renames a profile or changes its base URL. */
  'profiles:update': channel(z.strictObject({ id: id(), name: boundedText(MAX_NAME).optional(), baseUrl: boundedText(MAX_URL).optional() }), profileSummarySchema),
  /** Deletes a profile and its key. */
  'profiles:delete': channel(byId, z.object({ deleted: z.literal(true) })),
  /** Makes a profile the active service. */
  'profiles:activate': channel(byId, profileSummarySchema),
  /** Sets or replaces a profile's key (write-only: it never comes back). */
  'profiles:set-key': channel(z.strictObject({ id: id(), key: boundedText(MAX_SECRET) }), profileSummarySchema),
  /** Deletes a profile's key from the keychain. */
  'profiles:delete-key': channel(byId, profileSummarySchema),
  /** Tests a profile's stored key against account info. */
  'profiles:test-key': channel(byId, keyTestSchema),
  /**
   * Asks main to let a key go to the profile's new origin: main raises its own native dialog (the
   * renderer cannot answer it); refused where there is none (browser host): enter the key again.
   */
  'profiles:confirm-origin': channel(byId, profileSummarySchema),
};
