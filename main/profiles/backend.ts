/** The three keytar calls Swath uses; injectable so profile logic can be tested without an OS keychain. */
export interface KeychainBackend {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  /** Resolves true when something was deleted. */
  deletePassword(service: string, account: string): Promise<boolean>;
}

type KeytarModule = KeychainBackend & { default?: KeychainBackend };

/** The real OS keychain through keytar (libsecret, macOS Keychain, Windows Credential Manager). */
export function createKeytarBackend(): KeychainBackend {
  // Loaded on first use, so a missing or broken native module surfaces as a keychain error
  // the UI can show, instead of crashing the main process at startup.
  let loading: Promise<KeychainBackend> | undefined;
  const load = (): Promise<KeychainBackend> => {
    loading ??= import('keytar').then((mod: KeytarModule) => mod.default ?? mod);
    // A failed load is not cached: the user may fix the system and retry without restarting.
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };
  return {
    getPassword: async (service, account) => (await load()).getPassword(service, account),
    setPassword: async (service, account, password) => (await load()).setPassword(service, account, password),
    deletePassword: async (service, account) => (await load()).deletePassword(service, account),
  };
}

/** An in-memory backend for tests and examples; never use it as a fallback for a missing keychain. */
export class MemoryKeychainBackend implements KeychainBackend {
  /** Entries keyed by `service\0account`, exposed so tests can assert what was stored. */
  readonly entries = new Map<string, string>();
  /** When set, every call rejects with it, to simulate an unavailable keychain. */
  failWith: Error | undefined;

  /** Returns the stored secret, or null. */
  async getPassword(service: string, account: string): Promise<string | null> {
    this.check();
    return this.entries.get(entryKey(service, account)) ?? null;
  }

  /** Stores or replaces a secret. */
  async setPassword(service: string, account: string, password: string): Promise<void> {
    this.check();
    this.entries.set(entryKey(service, account), password);
  }

  /** Deletes a secret; true when one existed. */
  async deletePassword(service: string, account: string): Promise<boolean> {
    this.check();
    return this.entries.delete(entryKey(service, account));
  }

  private check(): void {
    if (this.failWith) throw this.failWith;
  }
}

function entryKey(service: string, account: string): string {
  return `${service}\0${account}`;
}
