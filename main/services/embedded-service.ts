import { join } from 'node:path';

/** The embedded service as main knows it; `apiKey` stays in main and is never part of a response. */
export interface ServiceEndpoint {
  label: string;
  baseUrl: string;
  demo: boolean;
  apiKey: string;
}

/** Key the embedded simulator accepts; harmless because the simulator only listens on loopback. */
export const DEMO_API_KEY = 'demo-key';

/** How the embedded simulator is labelled in the UI. */
export const DEMO_SERVICE_LABEL = 'Demo service (offline)';

/** Signature of `startSimulator` from main/simulator, injected so this module can be tested without it. */
export type StartSimulator = (opts: {
  port?: number;
  host?: string;
  statePath?: string;
  seed?: number;
  faults?: string;
  cacheDir?: string;
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
  const simulator = await start({
    // Port 0: the OS picks a free port, so two users (or a test) never collide.
    port: 0,
    host: '127.0.0.1',
    statePath: join(userDataDir, 'demo-state.json'),
    cacheDir: join(userDataDir, 'sim-cache'),
    log,
  });
  return {
    endpoint: { label: DEMO_SERVICE_LABEL, baseUrl: simulator.url, demo: true, apiKey: DEMO_API_KEY },
    close: () => simulator.close(),
  };
}
