import type { SimulatorOptions } from './server.js';

/**
 * Messages between main and the demo service's own process (an Electron utility process in the
 * app, a Node child process in the browser host). The key travels only here, never in argv, the
 * environment or a log line.
 */

/** What the child can be started with: the simulator's options that survive a structured clone. */
export type ChildSimulatorOptions = Pick<SimulatorOptions, 'port' | 'host' | 'statePath' | 'cacheDir' | 'seed' | 'shapes' | 'apiKeys'> & { faults?: string };

/** Main to the child. */
export type ToSimulatorChild = { type: 'start'; options: ChildSimulatorOptions } | { type: 'close' };

/** The child to main. */
export type FromSimulatorChild =
  | { type: 'ready'; url: string; port: number }
  | { type: 'log'; line: string }
  | { type: 'failed'; message: string }
  | { type: 'closed' };
