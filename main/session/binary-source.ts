import type { ServiceClient } from '../api';
import type { BinarySource } from '../downloads';

/** The download queue's source: the process operations of whatever client is active when a job (re)starts. */
export function clientBinarySource(client: (signal: AbortSignal) => Promise<ServiceClient>): BinarySource {
  return {
    async fetchBinary(kind, body, signal) {
      const c = await client(signal);
      if (kind === 'composite') return c.processComposite(body as never, signal);
      if (kind === 'tile') return c.processTile(body as never, signal);
      return c.processMiniTile(body as never, signal);
    },
  };
}
