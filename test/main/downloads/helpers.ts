import { createHash } from 'node:crypto';
import { createReadStream, readdirSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contentDispositionFileName } from '../../../main/api/index.js';
import { DownloadError, type BinarySource, type DownloadKind } from '../../../main/downloads/index.js';
import type { RunningSimulator } from '../../../simulator/index.js';

/** Process endpoints per download kind. */
export const PROCESS_PATHS: Record<DownloadKind, string> = {
  composite: '/api/satelliteimages/process/composite',
  tile: '/api/satelliteimages/process/tile',
  minitile: '/api/satelliteimages/process/minitile',
};

/** Options of {@link fetchSource}. */
export interface FetchSourceOptions {
  key?: string;
  /** Delay per received chunk, to make a large transfer slow enough to interrupt. */
  chunkDelayMs?: number;
  /** With chunkDelayMs: cut the body into pieces of at most this many bytes, each delayed (a slow link for small files). */
  chunkBytes?: number;
  fetch?: typeof fetch;
}

function kindForStatus(status: number): string {
  if (status === 400 || status === 415) return 'validation';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not-found';
  if (status === 429) return 'rate-limited';
  return status >= 500 ? 'transient' : 'validation';
}

/**
 * A BinarySource over plain fetch, standing in for the API client in tests: status codes map to
 * error kinds the way the contract's error table says, and network failures are transient.
 */
export function fetchSource(baseUrl: string, opts: FetchSourceOptions = {}): BinarySource & { requests: number } {
  const doFetch = opts.fetch ?? fetch;
  const src = {
    requests: 0,
    async fetchBinary(kind: DownloadKind, body: Record<string, unknown>, signal: AbortSignal) {
      src.requests++;
      let res: Response;
      try {
        res = await doFetch(baseUrl + PROCESS_PATHS[kind], {
          method: 'POST',
          headers: { 'x-api-key': opts.key ?? 'demo-key', 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal,
        });
      } catch (e) {
        if (signal.aborted) throw e;
        throw new DownloadError('transient', `POST ${PROCESS_PATHS[kind]} failed: ${(e as Error).message}`, { cause: e });
      }
      if (res.status === 201) {
        await res.body?.cancel();
        return { kind: 'uploaded' as const };
      }
      if (res.status !== 200 || !res.body) {
        const text = await res.text().catch(() => '');
        let message = `HTTP ${res.status}`;
        try {
          const env = JSON.parse(text) as { Data?: unknown; Error?: { Message?: string } };
          message = env.Error?.Message ?? message;
          if (env.Data && typeof env.Data === 'object') {
            const fields = Object.entries(env.Data as Record<string, unknown>).filter(([, v]) => Array.isArray(v));
            if (fields.length) message += ` ${fields.map(([k, v]) => `${k}: ${(v as string[]).join(' ')}`).join('; ')}`;
          }
        } catch {
          // not an envelope
        }
        const retryAfter = Number(res.headers.get('retry-after'));
        throw new DownloadError(kindForStatus(res.status), message, { status: res.status, retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined });
      }
      const length = res.headers.get('content-length');
      // Piped at once: an unlocked body is cancelled (it reads as empty) when its Response is garbage collected,
      // which is what the product's transport avoids by taking a reader at once.
      let stream = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TransformStream<Uint8Array, Uint8Array>());
      if (opts.chunkDelayMs) {
        const ms = opts.chunkDelayMs;
        stream = stream.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
          async transform(chunk, c) {
            const step = opts.chunkBytes ?? chunk.length;
            for (let at = 0; at < chunk.length; at += step) {
              await new Promise((r) => setTimeout(r, ms));
              c.enqueue(chunk.subarray(at, at + step));
            }
          },
        }));
      }
      return {
        kind: 'stream' as const,
        body: stream,
        fileName: contentDispositionFileName(res.headers.get('content-disposition')),
        contentLength: length === null ? null : Number(length),
      };
    },
  };
  return src;
}

/** sha256 of a file on disk. */
export async function sha256Of(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const c of createReadStream(file)) h.update(c as Buffer);
  return h.digest('hex');
}

/** sha256 of a response fetched without faults, to compare downloads against. */
export async function referenceSha(baseUrl: string, kind: DownloadKind, body: Record<string, unknown>): Promise<{ sha256: string; bytes: number; fileName: string | null }> {
  const res = await fetch(baseUrl + PROCESS_PATHS[kind], {
    method: 'POST',
    headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`reference download failed: HTTP ${res.status} ${await res.text()}`);
  const buf = Buffer.from(await res.arrayBuffer());
  return { sha256: createHash('sha256').update(buf).digest('hex'), bytes: buf.length, fileName: contentDispositionFileName(res.headers.get('content-disposition')) };
}

/** How many downloads the simulator billed: charged to an account's balance, or counted against an order's included downloads. */
export function billedDownloads(sim: RunningSimulator): number {
  let n = 0;
  for (const acc of Object.values(sim.state.accounts)) {
    n += acc.ledger.filter((e) => e.kind === 'Download').length;
    for (const o of acc.orders) n += o.downloadsUsed;
  }
  return n;
}

/** Names in a directory ending with .part. */
export function partFiles(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.part'));
}

/** Resolves once `predicate` holds, polling; rejects after `ms`. */
export async function waitFor(predicate: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A front on loopback before the simulator at `simUrl`: each request's body is read whole, then
 * `route` decides: call `forward()` to pass it on (now or later), or answer `res` itself.
 */
export async function startFront(simUrl: string, route: (req: IncomingMessage, body: Buffer, res: ServerResponse, forward: () => void) => void): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(simUrl);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      route(req, body, res, () => {
        const up = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer: IncomingMessage) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        up.on('error', () => res.destroy());
        up.end(body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
