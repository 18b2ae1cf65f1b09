import { CONTRACT_VERSION, type ConnectionState } from '../../preload/contract';
import type { HandlerTable } from './dispatcher';
import { HandlerError } from './errors';

/** The service main talks to; `apiKey` stays in main and is never part of a response. */
export interface ServiceEndpoint {
  label: string;
  baseUrl: string;
  demo: boolean;
  apiKey: string;
}

/** What the handler table needs from the app, injected so handlers stay free of Electron. */
export interface HandlerDeps {
  version: string;
  platform: string;
  /** Resolves once the active service is known (the embedded simulator may still be starting). */
  service: () => Promise<ServiceEndpoint>;
  /** Told about every ping outcome so main can broadcast `connection:state`. */
  onConnectionState?: (state: ConnectionState, detail?: string) => void;
  fetch?: typeof fetch;
  pingTimeoutMs?: number;
  now?: () => number;
}

const DEFAULT_PING_TIMEOUT_MS = 5_000;

/** Builds the handler table for the contract. */
export function createHandlers(deps: HandlerDeps): HandlerTable {
  const doFetch = deps.fetch ?? fetch;
  const now = deps.now ?? (() => performance.now());

  return {
    'app:info': async () => {
      const service = await deps.service();
      return {
        version: deps.version,
        platform: deps.platform,
        service: { label: service.label, baseUrl: service.baseUrl, demo: service.demo },
        contractVersion: CONTRACT_VERSION,
      };
    },

    'service:ping': async (_request, { signal }) => {
      const service = await deps.service();
      const url = `${service.baseUrl.replace(/\/+$/, '')}/api/account/info`;
      const started = now();
      let status: number;
      try {
        const response = await doFetch(url, {
          headers: { 'x-api-key': service.apiKey, accept: 'application/json' },
          signal: AbortSignal.any([signal, AbortSignal.timeout(deps.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS)]),
        });
        status = response.status;
        // Drain the body so the connection is released back to the pool.
        await response.arrayBuffer().catch(() => undefined);
      } catch (error) {
        if (signal.aborted) throw error;
        const latencyMs = Math.max(0, now() - started);
        deps.onConnectionState?.('offline', describeNetworkError(error));
        return { reachable: false, latencyMs };
      }
      const latencyMs = Math.max(0, now() - started);
      if (status === 401 || status === 403) {
        deps.onConnectionState?.('offline', 'The service rejected the API key.');
        throw new HandlerError('auth', `The service rejected the API key (HTTP ${status}).`);
      }
      const reachable = status >= 200 && status < 300;
      deps.onConnectionState?.(reachable ? 'online' : 'offline', reachable ? undefined : `The service answered HTTP ${status}.`);
      return { reachable, latencyMs };
    },
  };
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'The service did not answer in time.';
  }
  return 'The service could not be reached.';
}
