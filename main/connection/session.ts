import { ApiError, ServiceClient, accountLimits, type ConnectResult, type HttpFetch, type RetryPolicy, type SpecDrift } from '../api';
import { AppError } from '../../common/errors.js';
import type { Emit } from '../platform/emit';
import type { Clock } from '../platform/clock';
import type { SecretRegistry } from '../platform/secrets';
import { DEMO_PROFILE_ID, KeyOriginError, type ProfileStore, type ProfileSummary } from '../profiles';

/**
 * The connection to the active profile's service: one ServiceClient per
 * profile, connected on first use (specification, account limits, models)
 * and replaced when the active profile, its URL or its key changes.
 */

/** What {@link ServiceSession} needs. */
export interface SessionDeps {
  profiles: ProfileStore;
  /** Where discovered specifications are cached per base URL, so they work offline. */
  specCacheDir: string;
  /** The host's HTTP implementation (Electron's net.fetch in the app; undici under Node). */
  fetch?: HttpFetch;
  /** The app's secret registry, handed to every client (their transports add and mask keys there). */
  secrets: SecretRegistry;
  /** The app's clock, handed to every client. */
  clock?: Clock;
  emit: Emit;
  log?: (line: string) => void;
  /** Told the account's MaxConcurrentConnections after each connect (the download queue follows it). */
  onConcurrency?: (n: number) => void;
  /** Overrides of the API client's retry policy (tests that take a service away wait less between attempts). */
  retry?: Partial<RetryPolicy>;
}

interface Current {
  profile: ProfileSummary;
  client: ServiceClient;
  connected: Promise<ConnectResult> | null;
}

/** Connection status as the renderer sees it. */
export interface SessionStatus {
  profileId: string;
  label: string;
  baseUrl: string | null;
  demo: boolean;
  state: 'idle' | 'connecting' | 'online' | 'offline';
  detail?: string;
  contractNotice: { expected: string; actual: string | null; message: string } | null;
  /** What changed in the service's specification since the copy cached before it. */
  specDrift: SpecDrift | null;
  specSource: 'network' | 'cache' | null;
  concurrency: number;
  limits: { maxCompositeAreaKm2: number | null; maxTotalBands: number | null };
}

/** Owns the ServiceClient of the active profile. */
export class ServiceSession {
  private current: Current | null = null;
  private detail: string | undefined;

  constructor(private readonly deps: SessionDeps) {}

  /** The active profile's client, connected (connect errors reject, and the next call tries again). */
  async client(signal?: AbortSignal): Promise<ServiceClient> {
    const current = await this.ensure();
    current.connected ??= current.client.connect(signal).then(
      (result) => {
        this.deps.onConcurrency?.(result.concurrency);
        if (result.contractNotice) this.deps.emit('contract:notice', result.contractNotice);
        return result;
      },
      (error: unknown) => {
        // Not cached: the next call reconnects (the network may be back).
        if (this.current === current) current.connected = null;
        throw error;
      },
    );
    await current.connected;
    return current.client;
  }

  /** The active profile's client without connecting (for status). */
  private async ensure(): Promise<Current> {
    const profile = await this.deps.profiles.getActive();
    const cur = this.current;
    if (cur && cur.profile.id === profile.id && cur.profile.baseUrl === profile.baseUrl && cur.profile.keyLast4 === profile.keyLast4 && cur.profile.keyOrigin === profile.keyOrigin) {
      cur.profile = profile;
      return cur;
    }
    if (cur) void cur.client.close().catch(() => undefined);
    if (!profile.baseUrl) throw new AppError('transient', 'The demo service is still starting; try again in a moment.');
    const profileId = profile.id;
    const client = new ServiceClient({
      baseUrl: profile.baseUrl,
      cacheDir: this.deps.specCacheDir,
      fetch: this.deps.fetch,
      secrets: this.deps.secrets,
      clock: this.deps.clock,
      log: this.deps.log,
      retry: this.deps.retry,
      getKey: async () => {
        // Withheld when the profile moved to another origin than the key was entered for.
        const key = await this.deps.profiles.getKey(profileId).catch((error: unknown) => {
          throw error instanceof KeyOriginError ? new ApiError('auth', error.message, { fields: error.fields }) : error;
        });
        if (!key) throw new ApiError('auth', `No API key is set for the profile "${profile.name}". Set one in Settings.`);
        return key;
      },
      onConnectionState: (state, detail) => {
        this.detail = detail;
        if (this.current?.client === client) {
          this.deps.emit('connection:state', { state: state === 'idle' ? 'connecting' : state, ...(detail ? { detail } : {}) });
        }
      },
    });
    this.current = { profile, client, connected: null };
    return this.current;
  }

  /** Forgets the connection, so the next call reconnects (profile switched, key replaced, or the user asked). */
  invalidate(): void {
    const cur = this.current;
    this.current = null;
    if (cur) void cur.client.close().catch(() => undefined);
  }

  /** The status of the active service, without causing network traffic. */
  async status(): Promise<SessionStatus> {
    const cur = await this.ensure();
    const c = cur.client;
    const { maxCompositeAreaKm2, maxTotalBands } = accountLimits(c.account);
    return {
      profileId: cur.profile.id,
      label: cur.profile.name,
      baseUrl: cur.profile.baseUrl,
      demo: cur.profile.id === DEMO_PROFILE_ID,
      state: c.connectionState,
      ...(this.detail ? { detail: this.detail } : {}),
      contractNotice: c.contractNotice,
      specDrift: c.specDrift,
      specSource: c.specification?.source ?? null,
      concurrency: c.concurrency,
      limits: { maxCompositeAreaKm2, maxTotalBands },
    };
  }

  /** Closes the client. */
  async close(): Promise<void> {
    const cur = this.current;
    this.current = null;
    await cur?.client.close();
  }
}
