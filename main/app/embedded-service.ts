import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** The embedded service as main knows it; `apiKey` stays in main and is never part of a response. */
export interface ServiceEndpoint {
  label: string;
  baseUrl: string;
  demo: boolean;
  apiKey: string;
}

/** The documented simulator account the embedded service's key acts as (`npm run simulator` accepts this key itself). */
export const DEMO_ACCOUNT_KEY = 'demo-key';

/**
 * A fresh key for one run of the embedded service. The documented demo keys are
 * public, so any local process or web page could use them against the embedded
 * service; this one lives only in main (never in the renderer, logs or files).
 */
export function randomDemoKey(): string {
  return `demo-${randomBytes(24).toString('base64url')}`;
}

/** How the embedded simulator is labelled in the UI. */
export const DEMO_SERVICE_LABEL = 'Demo service (offline)';

/** Signature of `startSimulator` from simulator, injected so this module can be tested without it. */
export type StartSimulator = (opts: {
  port?: number;
  host?: string;
  statePath?: string;
  seed?: number;
  faults?: string;
  cacheDir?: string;
  shapes?: string;
  /** Accepted x-api-key values, each mapped to a documented account. */
  apiKeys?: Record<string, string>;
  log?: (line: string) => void;
}) => Promise<{ url: string; port: number; close(): Promise<void> }>;

/** A running embedded service and how to stop it. */
export interface EmbeddedService {
  endpoint: ServiceEndpoint;
  close(): Promise<void>;
}

/** Starts the simulator in-process on a random loopback port, with its state under the user-data folder. */
export async function startEmbeddedService(
  userDataDir: string,
  start: StartSimulator,
  log: (line: string) => void = () => undefined,
): Promise<EmbeddedService> {
  const apiKey = randomDemoKey();
  const simulator = await start({
    // Port 0: the OS picks a free port, so two users (or a test) never collide.
    port: 0,
    host: '127.0.0.1',
    statePath: join(userDataDir, 'demo-state.json'),
    cacheDir: join(userDataDir, 'sim-cache'),
    // SWATH_SIM_SHAPES=variant makes the demo service (and so `npm run dev:browser`) answer in the variant style.
    shapes: process.env.SWATH_SIM_SHAPES,
    // Only this run's key: the demo account's orders and ledger persist under its documented name.
    apiKeys: { [apiKey]: DEMO_ACCOUNT_KEY },
    log,
  });
  return {
    endpoint: { label: DEMO_SERVICE_LABEL, baseUrl: simulator.url, demo: true, apiKey },
    close: () => simulator.close(),
  };
}
