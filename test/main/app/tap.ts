import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StartSimulator } from '../../../main/app/embedded-service';

/**
 * A loopback HTTP proxy in front of the simulator, so a test sees what the service sees: every
 * request, whether its client went away before the answer (aborted), and requests of chosen paths
 * held until the test releases them.
 */

/** One request as the service received it. */
export interface Tapped {
  method: string;
  path: string;
  /** The client closed the connection before the answer was complete. */
  aborted: boolean;
}

/** A running tap. */
export interface Tap {
  url: string;
  port: number;
  requests: Tapped[];
  /** Requests to this path wait until {@link release} (or until their client goes away). */
  hold(path: string): void;
  /** Lets held requests (and later ones) through. */
  release(): void;
  close(): Promise<void>;
}

/** Starts a tap forwarding to `target`. */
export async function startTap(target: string): Promise<Tap> {
  const requests: Tapped[] = [];
  const held = new Set<string>();
  let waiting: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', target);
    const rec: Tapped = { method: req.method ?? 'GET', path: url.pathname, aborted: false };
    requests.push(rec);
    let gone = false;
    res.on('close', () => {
      gone = true;
      if (!res.writableFinished) rec.aborted = true;
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forward = () => {
        if (gone) return;
        // The simulator answers only to its own Host (DNS-rebinding guard), as a reverse proxy sends it.
        const up = http.request(url, { method: req.method, headers: { ...req.headers, host: new URL(url).host } }, (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        });
        up.on('error', () => res.destroy());
        res.on('close', () => up.destroy());
        up.end(Buffer.concat(chunks));
      };
      if (held.has(rec.path)) waiting.push(forward);
      else forward();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    hold: (path) => void held.add(path),
    release() {
      held.clear();
      const go = waiting;
      waiting = [];
      for (const f of go) f();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Wraps a simulator starter so the app reaches the simulator through a tap; `onTap` receives it. */
export function tapped(start: StartSimulator, onTap: (tap: Tap) => void): StartSimulator {
  return async (opts) => {
    const sim = await start(opts);
    const tap = await startTap(sim.url);
    onTap(tap);
    return {
      url: tap.url,
      port: tap.port,
      async close() {
        await tap.close();
        await sim.close();
      },
    };
  };
}
