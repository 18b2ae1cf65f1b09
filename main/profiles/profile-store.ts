import { randomUUID } from 'node:crypto';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { lastFour } from '../../preload/contract/redaction.js';
import { AppError } from '../../common/errors.js';
import { systemClock, type Clock } from '../platform/clock.js';
import type { SecretRegistry } from '../platform/secrets.js';
import { JsonFileError, readJsonFile, removeStaleTempFiles, writeJsonAtomic } from '../shared/files.js';
import { KeychainError, scrub, type KeychainProblem } from './errors.js';
import { Keychain } from './keychain.js';
import { checkBaseUrl, keyReasons, nameReasons } from './validation.js';

/** Id of the built-in profile that points at the embedded simulator. */
export const DEMO_PROFILE_ID = 'demo';

/** How the built-in profile is labelled in the UI. */
export const DEMO_PROFILE_NAME = 'Demo service (offline)';

/** File, inside the injected directory, that holds profile metadata (never a key). */
export const PROFILES_FILE_NAME = 'profiles.json';

/** What the renderer may know about a profile: whether a key is set and its last 4 characters, never the key. */
export interface ProfileSummary {
  id: string;
  name: string;
  /** Null only for the demo profile while the embedded simulator has not started yet. */
  baseUrl: string | null;
  /** True for the demo profile, which cannot be edited or deleted. */
  builtIn: boolean;
  active: boolean;
  /** Whether a key is available; when the keychain cannot be read, whether Swath last stored one. */
  keySet: boolean;
  /** Last 4 characters of the key, or null when unknown or when the key is too short to reveal any of it. */
  keyLast4: string | null;
  /** The origin the key was entered (or confirmed) for; null without a key. */
  keyOrigin: string | null;
  /**
   * True when the base URL now points at another origin than {@link keyOrigin}: the key is
   * not sent until the analyst enters it again or confirms the new origin in main's dialog.
   */
  keyNeedsConfirm: boolean;
}

/** All profiles, plus why the keychain could not be read (the list still renders from metadata then). */
export interface ProfileListing {
  profiles: ProfileSummary[];
  activeProfileId: string;
  keychainError: { problem: KeychainProblem; message: string } | null;
}

/** Fields of a new profile; `key` is optional and goes only to the keychain. */
export interface ProfileInput {
  name: string;
  baseUrl: string;
  key?: string;
}

/** Fields of a profile that may be edited; the key has its own operations. */
export interface ProfilePatch {
  name?: string;
  baseUrl?: string;
}

/** What a key probe reports; the real probe calls GET {base}/api/account/info with the key. */
export type KeyProbeOutcome =
  | { status: 'ok' }
  | { status: 'auth'; httpStatus?: number; message?: string }
  | { status: 'network'; message?: string };

/** Calls account info with a key; injected so the keychain does not depend on the API client. */
export type KeyProbe = (request: { baseUrl: string; key: string; signal: AbortSignal }) => Promise<KeyProbeOutcome>;

/** The outcome of {@link ProfileStore.testKey}, with a message fit for the UI (it never contains the key). */
export type KeyTestResult =
  | { status: 'ok'; message: string }
  | { status: 'auth'; message: string; httpStatus?: number }
  | { status: 'network'; message: string };

/** Options of {@link ProfileStore.open}. */
export interface ProfileStoreOptions {
  /** Directory for the metadata file, normally Electron's userData. */
  dir: string;
  /** Key of the embedded simulator until {@link ProfileStore.setDemoBaseUrl} gives this run's; never written to the keychain. */
  demoKey: string;
  /** The keychain; defaults to keytar under the service name "Swath". */
  keychain?: Keychain;
  /** The app's secret registry: the demo key and every key the store reads or is given are added, so every egress masks them. */
  secrets: SecretRegistry;
  log?: (line: string) => void;
  /** The app's clock (profile timestamps, the name of a set-aside file); the system clock by default. */
  clock?: Clock;
}

const DEFAULT_TEST_TIMEOUT_MS = 15_000;

const storedProfileSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  baseUrl: z.string(),
  /** A hint only: the keychain is the truth, but a locked Secret Service reads as "no key" without an error. */
  keyStored: z.boolean(),
  /** The origin the key was entered for; absent in files written before keys were bound (then: the base URL's). */
  keyOrigin: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const stateSchema = z.object({
  version: z.literal(1),
  activeProfileId: z.string().nullable(),
  profiles: z.array(storedProfileSchema),
});

type StoredProfile = z.infer<typeof storedProfileSchema>;
type State = z.infer<typeof stateSchema>;

interface KeyLookup {
  key: string | null;
  error: KeychainError | null;
}

/** Service profiles: metadata persisted atomically as JSON, keys only in the OS keychain. */
export class ProfileStore {
  private state: State;
  private demoBaseUrl: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly file: string;
  private readonly keychain: Keychain;
  private readonly log: (line: string) => void;
  private readonly now: () => Date;
  private readonly secrets: SecretRegistry;
  private demoKey: string;
  /** Locked profiles (the admin policy's) and why: they cannot be renamed, re-pointed or deleted. */
  private readonly locked = new Map<string, string>();
  private demoHidden = false;

  private constructor(options: ProfileStoreOptions, state: State) {
    this.state = state;
    this.file = join(options.dir, PROFILES_FILE_NAME);
    this.keychain = options.keychain ?? new Keychain();
    this.log = options.log ?? (() => undefined);
    const clock = options.clock ?? systemClock;
    this.now = () => new Date(clock.now());
    this.demoKey = options.demoKey;
    this.secrets = options.secrets;
    // Main masks every key it holds out of whatever the services answer.
    this.secrets.add(options.demoKey);
  }

  /** Loads the profiles from `options.dir`, creating nothing until the first change. */
  static async open(options: ProfileStoreOptions): Promise<ProfileStore> {
    const log = options.log ?? (() => undefined);
    await mkdir(options.dir, { recursive: true });
    const file = join(options.dir, PROFILES_FILE_NAME);
    await removeStaleTempFiles(file);
    return new ProfileStore(options, await loadState(file, log, options.clock ?? systemClock));
  }

  /** Locks profiles from now on (the admin policy's): renaming, re-pointing or deleting them is refused with `reason`. */
  lock(ids: readonly string[], reason: string): void {
    for (const id of ids) this.locked.set(id, reason);
  }

  /**
   * Hides the demo profile from now on (the admin policy's `hideDemoService`): it is no longer
   * listed, and every operation a window asks on it (describe, edit, delete, activate, keys, the
   * key test) is refused as an unknown profile. Main's own reads (the active profile, its key) still see it.
   */
  hideDemo(): void {
    this.demoHidden = true;
  }

  /** Reads every stored key once, so that from the start no log line or report can carry one unmasked. */
  async maskStoredKeys(): Promise<void> {
    const listing = await this.list();
    for (const p of listing.profiles) {
      if (p.keySet && p.id !== DEMO_PROFILE_ID) this.secrets.add(await this.getKey(p.id).catch(() => null));
    }
  }

  /** Tells the store where the embedded simulator listens (or null once it stopped), and this run's key for it. */
  setDemoBaseUrl(url: string | null, key?: string): void {
    if (key !== undefined) {
      this.demoKey = key;
      // The running demo service's key is masked everywhere, like every key main holds.
      this.secrets.add(key);
    }
    if (url === null) {
      this.demoBaseUrl = null;
      return;
    }
    const checked = checkBaseUrl(url);
    if (!checked.ok) throw new Error(`Invalid demo base URL: ${checked.reasons.join(' ')}`);
    this.demoBaseUrl = checked.url;
  }

  /** Lists the demo profile and every saved profile, reading key status from the keychain. */
  list(): Promise<ProfileListing> {
    return this.serial(async () => {
      const profiles: ProfileSummary[] = this.demoHidden ? [] : [this.demoSummary()];
      let keychainError: KeychainError | null = null;
      for (const profile of this.state.profiles) {
        // After one failure every lookup would fail (and maybe prompt) the same way.
        const lookup: KeyLookup = keychainError ? { key: null, error: keychainError } : await this.lookupKey(profile);
        keychainError ??= lookup.error;
        profiles.push(this.summarize(profile, lookup));
      }
      return {
        profiles,
        activeProfileId: this.activeId(),
        keychainError: keychainError ? { problem: keychainError.problem, message: keychainError.message } : null,
      };
    });
  }

  /** Describes one profile; throws a not-found error for an unknown id. */
  get(id: string): Promise<ProfileSummary> {
    return this.serial(async () => {
      if (id === DEMO_PROFILE_ID) return this.demoSummary();
      const profile = this.find(id);
      return this.summarize(profile, await this.lookupKey(profile));
    });
  }

  /** Describes one profile as a window may see it: a hidden demo profile is not found. */
  async shown(id: string): Promise<ProfileSummary> {
    this.refuseHidden(id);
    return this.get(id);
  }

  /** Describes the active profile (the demo profile when none was chosen). */
  async getActive(): Promise<ProfileSummary> {
    return this.get(await this.serial(async () => this.activeId()));
  }

  /** Creates a profile; a key, when given, goes to the keychain before any metadata is written. */
  create(input: ProfileInput): Promise<ProfileSummary> {
    // A key the analyst enters is masked from that moment on, even when the profile is refused.
    if (typeof input?.key === 'string') this.secrets.add(input.key);
    return this.serial(async () => {
      const fields: Record<string, string[]> = {};
      const name = this.checkName(input?.name, null, fields);
      const baseUrl = checkBaseUrlInto(input?.baseUrl, fields);
      if (input?.key !== undefined) addReasons(fields, 'key', keyReasons(input.key));
      throwIfInvalid(fields);

      const at = this.now().toISOString();
      const profile: StoredProfile = { id: randomUUID(), name, baseUrl, keyStored: false, createdAt: at, updatedAt: at };
      if (input.key !== undefined) {
        await this.keychain.set(profile.id, input.key);
        profile.keyStored = true;
        profile.keyOrigin = originOf(baseUrl);
      }
      try {
        await this.commit({ ...this.state, profiles: [...this.state.profiles, profile] });
      } catch (error) {
        // Without its metadata the key would be an orphan nobody can see or delete.
        if (profile.keyStored) await this.keychain.delete(profile.id).catch(() => undefined);
        throw error;
      }
      this.log(`keychain: created profile ${profile.id}`);
      return this.summarize(profile, { key: input.key ?? null, error: null });
    });
  }

  /**
   * Renames a profile or changes its base URL. The key stays in the keychain but stays bound to
   * the origin it was entered for: it is not sent to a new origin until {@link setKey} or
   * {@link confirmKeyOrigin} (after main's own dialog) binds it there.
   */
  update(id: string, patch: ProfilePatch): Promise<ProfileSummary> {
    return this.serial(async () => {
      this.refuseHidden(id);
      this.refuseDemo(id, 'edited');
      this.refuseLocked(id, 'This profile’s name and base URL are fixed.');
      const current = this.find(id);
      const fields: Record<string, string[]> = {};
      const name = patch?.name === undefined ? current.name : this.checkName(patch.name, id, fields);
      const baseUrl = patch?.baseUrl === undefined ? current.baseUrl : checkBaseUrlInto(patch.baseUrl, fields);
      throwIfInvalid(fields);
      // The key stays bound where it was entered (a profile from before binding: its old base URL).
      const updated: StoredProfile = { ...current, name, baseUrl, keyOrigin: boundOrigin(current), updatedAt: this.now().toISOString() };
      await this.commit(this.replace(updated));
      if (boundOrigin(updated) !== originOf(baseUrl)) this.log(`keychain: profile ${id} moved to ${originOf(baseUrl)}; its key stays bound to ${boundOrigin(updated)}`);
      return this.summarize(updated, await this.lookupKey(updated));
    });
  }

  /** Stores or replaces the key of a profile in the keychain. */
  setKey(id: string, key: string): Promise<ProfileSummary> {
    // A key the analyst enters is masked from that moment on, even when it is refused.
    if (typeof key === 'string') this.secrets.add(key);
    return this.serial(async () => {
      this.refuseHidden(id);
      this.refuseDemo(id, 'given another key');
      const current = this.find(id);
      const fields: Record<string, string[]> = {};
      addReasons(fields, 'key', keyReasons(key));
      throwIfInvalid(fields);
      await this.keychain.set(id, key);
      const updated: StoredProfile = { ...current, keyStored: true, keyOrigin: originOf(current.baseUrl), updatedAt: this.now().toISOString() };
      await this.commit(this.replace(updated));
      this.log(`keychain: stored the key of profile ${id}`);
      return this.summarize(updated, { key, error: null });
    });
  }

  /** Deletes the key of a profile from the keychain; the profile stays. */
  deleteKey(id: string): Promise<ProfileSummary> {
    return this.serial(async () => {
      this.refuseHidden(id);
      this.refuseDemo(id, 'stripped of its key');
      const current = this.find(id);
      const deleted = await this.keychain.delete(id);
      // A locked Secret Service reports "nothing deleted" without an error.
      if (!deleted && current.keyStored) await this.keychain.check();
      const { keyOrigin: _dropped, ...rest } = current;
      const updated: StoredProfile = { ...rest, keyStored: false, updatedAt: this.now().toISOString() };
      await this.commit(this.replace(updated));
      this.log(`keychain: deleted the key of profile ${id}`);
      return this.summarize(updated, { key: null, error: null });
    });
  }

  /** Deletes a profile and its key; the demo profile becomes active if this one was. */
  delete(id: string): Promise<void> {
    return this.serial(async () => {
      this.refuseHidden(id);
      this.refuseDemo(id, 'deleted');
      this.refuseLocked(id, 'This profile cannot be deleted.');
      const current = this.find(id);
      try {
        const deleted = await this.keychain.delete(id);
        if (!deleted && current.keyStored) await this.keychain.check();
      } catch (error) {
        // A profile that never had a key can go even while the keychain is broken;
        // one that has a key must not leave it behind, unreachable, in the keychain.
        if (current.keyStored || !(error instanceof KeychainError)) throw error;
      }
      const activeProfileId = this.state.activeProfileId === id ? null : this.state.activeProfileId;
      await this.commit({ ...this.state, activeProfileId, profiles: this.state.profiles.filter((p) => p.id !== id) });
      this.log(`keychain: deleted profile ${id}`);
    });
  }

  /** Makes a profile the one the app connects to. */
  setActive(id: string): Promise<ProfileSummary> {
    return this.serial(async () => {
      this.refuseHidden(id);
      if (id !== DEMO_PROFILE_ID) this.find(id);
      await this.commit({ ...this.state, activeProfileId: id === DEMO_PROFILE_ID ? null : id });
      if (id === DEMO_PROFILE_ID) return this.demoSummary();
      const profile = this.find(id);
      return this.summarize(profile, await this.lookupKey(profile));
    });
  }

  /**
   * Binds a profile's key to its current origin. Only main calls this, after the analyst agreed in
   * main's own dialog; `origin` is the origin that dialog named, so a base URL changed meanwhile is refused.
   */
  confirmKeyOrigin(id: string, origin: string): Promise<ProfileSummary> {
    return this.serial(async () => {
      this.refuseHidden(id);
      this.refuseDemo(id, 'given another key');
      const current = this.find(id);
      if (originOf(current.baseUrl) !== origin) {
        throw new AppError('validation', `The base URL changed to ${originOf(current.baseUrl)} meanwhile; confirm again.`);
      }
      const updated: StoredProfile = { ...current, keyOrigin: origin, updatedAt: this.now().toISOString() };
      await this.commit(this.replace(updated));
      this.log(`keychain: the key of profile ${id} is now bound to ${origin}`);
      return this.summarize(updated, await this.lookupKey(updated));
    });
  }

  /**
   * Returns a profile's key for main-process use only (the API client); never send it to the renderer.
   * A key entered for another origin than the profile's current one is withheld ({@link KeyOriginError}).
   */
  getKey(id: string): Promise<string | null> {
    return this.serial(async () => {
      if (id === DEMO_PROFILE_ID) return this.demoKey;
      const profile = this.find(id);
      const lookup = await this.lookupKey(profile);
      if (lookup.error) throw lookup.error;
      if (lookup.key !== null) refuseForeignOrigin(profile);
      return lookup.key;
    });
  }

  /**
   * A profile's service and key in one read of the keychain (main only: what the spend guard counts
   * a spend on). The demo profile's key is not read (its account is its own); a key withheld for
   * another origin, or a keychain that cannot be read, rejects as {@link getKey} does.
   */
  spendIdentity(id: string): Promise<{ id: string; baseUrl: string | null; builtIn: boolean; key: string | null }> {
    return this.serial(async () => {
      if (id === DEMO_PROFILE_ID) return { id, baseUrl: this.demoBaseUrl, builtIn: true, key: null };
      const profile = this.find(id);
      const lookup = await this.lookupKey(profile);
      if (lookup.error) throw lookup.error;
      if (lookup.key !== null) refuseForeignOrigin(profile);
      return { id: profile.id, baseUrl: profile.baseUrl, builtIn: false, key: lookup.key };
    });
  }

  /** Checks a profile's key against the service with `probe` (account info); the key never leaves main. */
  async testKey(id: string, probe: KeyProbe, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<KeyTestResult> {
    const { baseUrl, key } = await this.serial(async () => {
      this.refuseHidden(id);
      if (id === DEMO_PROFILE_ID) {
        if (!this.demoBaseUrl) throw new AppError('transient', 'The demo service is still starting; try again in a moment.');
        return { baseUrl: this.demoBaseUrl, key: this.demoKey };
      }
      const profile = this.find(id);
      const lookup = await this.lookupKey(profile);
      if (lookup.error) throw lookup.error;
      if (lookup.key === null) {
        throw new AppError('validation', 'This profile has no API key yet: set one first.', { fields: { key: ['No API key is set.'] } });
      }
      refuseForeignOrigin(profile);
      return { baseUrl: profile.baseUrl, key: lookup.key };
    });

    const timeoutMs = options.timeoutMs ?? DEFAULT_TEST_TIMEOUT_MS;
    const signals = [AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])];
    let outcome: KeyProbeOutcome;
    try {
      outcome = await probe({ baseUrl, key, signal: AbortSignal.any(signals) });
    } catch (error) {
      if (options.signal?.aborted) throw new AppError('cancelled', 'The key test was cancelled.');
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const reason = timedOut ? `it did not answer within ${Math.round(timeoutMs / 1000)} s` : describeError(error);
      return { status: 'network', message: scrub(`The service at ${baseUrl} could not be reached: ${reason}.`, key) };
    }
    switch (outcome.status) {
      case 'ok':
        return { status: 'ok', message: 'The service accepted the key.' };
      case 'auth': {
        const code = outcome.httpStatus ? ` (HTTP ${outcome.httpStatus})` : '';
        const detail = outcome.message ? `: ${outcome.message}` : '.';
        const result: KeyTestResult = { status: 'auth', message: scrub(`The service rejected the key${code}${detail}`, key) };
        if (outcome.httpStatus) result.httpStatus = outcome.httpStatus;
        return result;
      }
      case 'network': {
        const detail = outcome.message ? `: ${outcome.message}` : '.';
        return { status: 'network', message: scrub(`The service at ${baseUrl} could not be reached${detail}`, key) };
      }
    }
  }

  // Every operation runs alone, so a read-modify-write of the metadata (or a keychain
  // write followed by a metadata write) never interleaves with another.
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async lookupKey(profile: StoredProfile): Promise<KeyLookup> {
    try {
      const key = await this.keychain.get(profile.id);
      if (key !== null) this.secrets.add(key);
      if (key !== null || !profile.keyStored) return { key, error: null };
      // Swath stored a key but the keychain says there is none: either the keyring is
      // locked (libsecret answers reads of a locked item with "nothing") or someone removed it.
      await this.keychain.check();
      this.log(`keychain: the key of profile ${profile.id} was removed outside Swath`);
      // Healing the hint only saves the next check; a failed write must not fail the read.
      await this.commit(this.replace({ ...profile, keyStored: false })).catch((error: unknown) => {
        this.log(`keychain: could not update ${PROFILES_FILE_NAME}: ${describeError(error)}`);
      });
      return { key: null, error: null };
    } catch (error) {
      if (error instanceof KeychainError) return { key: null, error };
      throw error;
    }
  }

  private summarize(profile: StoredProfile, lookup: KeyLookup): ProfileSummary {
    const known = lookup.error === null;
    const hasKey = known ? lookup.key !== null : profile.keyStored;
    return {
      id: profile.id,
      name: profile.name,
      baseUrl: profile.baseUrl,
      builtIn: false,
      active: this.activeId() === profile.id,
      keySet: hasKey,
      keyLast4: known && lookup.key !== null ? lastFour(lookup.key) : null,
      keyOrigin: hasKey ? boundOrigin(profile) : null,
      keyNeedsConfirm: hasKey && boundOrigin(profile) !== originOf(profile.baseUrl),
    };
  }

  private demoSummary(): ProfileSummary {
    return {
      id: DEMO_PROFILE_ID,
      name: DEMO_PROFILE_NAME,
      baseUrl: this.demoBaseUrl,
      builtIn: true,
      active: this.activeId() === DEMO_PROFILE_ID,
      keySet: true,
      // A random key per run (kept in main): nothing of it is shown.
      keyLast4: null,
      keyOrigin: this.demoBaseUrl ? originOf(this.demoBaseUrl) : null,
      keyNeedsConfirm: false,
    };
  }

  private activeId(): string {
    const id = this.state.activeProfileId;
    return id && this.state.profiles.some((p) => p.id === id) ? id : DEMO_PROFILE_ID;
  }

  private find(id: string): StoredProfile {
    const profile = typeof id === 'string' ? this.state.profiles.find((p) => p.id === id) : undefined;
    if (!profile) throw new AppError('not-found', 'No such profile: it may have been deleted.');
    return profile;
  }

  private replace(profile: StoredProfile): State {
    return { ...this.state, profiles: this.state.profiles.map((p) => (p.id === profile.id ? profile : p)) };
  }

  private refuseHidden(id: string): void {
    if (this.demoHidden && id === DEMO_PROFILE_ID) throw new AppError('not-found', 'No such profile.');
  }

  private refuseDemo(id: string, what: string): void {
    if (id === DEMO_PROFILE_ID) {
      throw new AppError('validation', `The "${DEMO_PROFILE_NAME}" profile is built in and cannot be ${what}.`);
    }
  }

  private refuseLocked(id: string, what: string): void {
    const reason = this.locked.get(id);
    if (reason !== undefined) throw new AppError('validation', `${what} ${reason}`, { fields: { id: [reason] } });
  }

  private checkName(input: unknown, selfId: string | null, fields: Record<string, string[]>): string {
    const reasons = nameReasons(input);
    const name = typeof input === 'string' ? input.trim() : '';
    if (reasons.length === 0) {
      const taken = [DEMO_PROFILE_NAME, ...this.state.profiles.filter((p) => p.id !== selfId).map((p) => p.name)];
      if (taken.some((other) => other.toLocaleLowerCase() === name.toLocaleLowerCase())) {
        reasons.push(`A profile named "${name}" already exists.`);
      }
    }
    addReasons(fields, 'name', reasons);
    return name;
  }

  // The in-memory state changes only once the file is safely on disk.
  private async commit(next: State): Promise<void> {
    await writeJsonAtomic(this.file, next);
    this.state = next;
  }
}

async function loadState(file: string, log: (line: string) => void, clock: Clock): Promise<State> {
  const empty: State = { version: 1, activeProfileId: null, profiles: [] };
  let parsed: State;
  try {
    const raw = await readJsonFile(file, undefined, empty.version);
    if (raw === null) return empty;
    parsed = stateSchema.parse(raw);
  } catch (error) {
    if (error instanceof JsonFileError && error.problem === 'unreadable') {
      throw new AppError('io', `Could not read the profiles file ${file}: ${describeError(error.cause)}.`);
    }
    // Keep the unreadable file for the user instead of overwriting it with the next change (a move
    // aside, not a write: the files module's renames are for content main wrote).
    const aside = `${file}.corrupt-${clock.now()}`;
    await rename(file, aside);
    log(`keychain: ${file} was unreadable; moved it to ${aside} and started with no profiles`);
    return empty;
  }
  // A hand-edited file may repeat an id or claim the demo id; the first real one wins.
  const seen = new Set<string>([DEMO_PROFILE_ID]);
  const profiles = parsed.profiles.filter((p) => {
    if (seen.has(p.id)) return false;
    seen.add(p.id);
    return true;
  });
  return { ...parsed, profiles };
}

/** The origin (scheme, host, port) of a checked base URL. */
function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

/** The origin a stored key is bound to; profiles saved before binding existed trust their base URL as it was. */
function boundOrigin(profile: StoredProfile): string {
  return profile.keyOrigin ?? originOf(profile.baseUrl);
}

/** A key withheld because the profile's base URL moved to another origin than the key was entered for. */
export class KeyOriginError extends AppError {
  constructor(
    readonly keyOrigin: string,
    readonly origin: string,
  ) {
    super('auth', `The API key was entered for ${keyOrigin}, but the profile now points at ${origin}. Enter the key again, or confirm in Settings that it may be sent to ${origin}.`, {
      fields: { key: [`Key entered for ${keyOrigin}; re-enter it or confirm it for ${origin}.`] },
    });
    this.name = 'KeyOriginError';
  }
}

function refuseForeignOrigin(profile: StoredProfile): void {
  const bound = boundOrigin(profile);
  const now = originOf(profile.baseUrl);
  if (bound !== now) throw new KeyOriginError(bound, now);
}

function checkBaseUrlInto(input: unknown, fields: Record<string, string[]>): string {
  const checked = checkBaseUrl(input);
  if (checked.ok) return checked.url;
  addReasons(fields, 'baseUrl', checked.reasons);
  return '';
}

function addReasons(fields: Record<string, string[]>, field: string, reasons: string[]): void {
  if (reasons.length > 0) fields[field] = [...(fields[field] ?? []), ...reasons];
}

function throwIfInvalid(fields: Record<string, string[]>): void {
  const reasons = Object.values(fields).flat();
  if (reasons.length === 0) return;
  throw new AppError('validation', reasons.join(' '), { fields });
}

function describeError(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\.+$/, '') || 'unknown error';
  // fetch reports "fetch failed" and keeps the useful part (ECONNREFUSED, ENOTFOUND, ...) in `cause`.
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const causeText = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  return causeText ? `${message} (${causeText})` : message;
}
