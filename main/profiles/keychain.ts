import { randomBytes } from 'node:crypto';
import { createKeytarBackend, type KeychainBackend } from './backend.js';
import { classifyKeychainError, keychainErrorFor, type ClassifyContext } from './errors.js';

/** Service name under which Swath's keys live in the OS keychain (one account per profile id). */
export const KEYCHAIN_SERVICE = 'Swath';

/** How to reach the keychain; everything defaults to the real one for this process. */
export interface KeychainOptions {
  backend?: KeychainBackend;
  service?: string;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  /** The command that starts this Swath, named in advice (see {@link ClassifyContext.launchCommand}). */
  launchCommand?: string;
}

// Short-lived account used to prove the keychain can store right now; never holds a real key.
const CHECK_ACCOUNT_PREFIX = '.swath-check-';

/** A thin wrapper over a {@link KeychainBackend} that turns every failure into a clear KeychainError. */
export class Keychain {
  /** The keychain service name all accounts are stored under. */
  readonly service: string;
  private readonly backend: KeychainBackend;
  private readonly context: ClassifyContext;

  /** Wraps the given backend, or keytar when none is given. */
  constructor(options: KeychainOptions = {}) {
    this.backend = options.backend ?? createKeytarBackend();
    this.service = options.service ?? KEYCHAIN_SERVICE;
    this.context = { platform: options.platform, env: options.env, launchCommand: options.launchCommand };
  }

  /** Reads the secret stored for `account`, or null when there is none. */
  async get(account: string): Promise<string | null> {
    try {
      return await this.backend.getPassword(this.service, account);
    } catch (error) {
      throw classifyKeychainError(error, this.context);
    }
  }

  /** Stores (or replaces) the secret for `account`. */
  async set(account: string, secret: string): Promise<void> {
    try {
      await this.backend.setPassword(this.service, account, secret);
    } catch (error) {
      throw classifyKeychainError(error, { ...this.context, secret });
    }
  }

  /** Deletes the secret for `account`; resolves false when there was none. */
  async delete(account: string): Promise<boolean> {
    try {
      return await this.backend.deletePassword(this.service, account);
    } catch (error) {
      throw classifyKeychainError(error, this.context);
    }
  }

  /** Proves the keychain can store and read back a secret right now, or throws the KeychainError that explains why not. */
  async check(): Promise<void> {
    // A locked Secret Service answers reads with "nothing here" instead of an error;
    // only a write reveals the lock, so the check writes a throwaway secret.
    const account = CHECK_ACCOUNT_PREFIX + randomBytes(6).toString('hex');
    const secret = randomBytes(12).toString('hex');
    await this.set(account, secret);
    try {
      const read = await this.get(account);
      if (read !== secret) {
        throw keychainErrorFor('unavailable', this.context.platform, 'a secret that was just stored could not be read back', this.context.launchCommand);
      }
    } finally {
      await this.delete(account).catch(() => undefined);
    }
  }
}
