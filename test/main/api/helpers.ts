import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ServiceClient, type ServiceClientOptions } from '../../../main/api/client.js';
import { createNodeFetch } from '../../../main/api/http.js';
import type { AttemptEvent } from '../../../main/api/transport.js';

/** A client for tests: no env proxy, no real waits between retries, attempts and log lines recorded. */
export interface TestClient {
  client: ServiceClient;
  attempts: AttemptEvent[];
  logs: string[];
  delays: number[];
  cacheDir: string;
  close(): Promise<void>;
}

/** Builds a ServiceClient against `baseUrl` with the demo key. */
export function makeClient(baseUrl: string, overrides: Partial<ServiceClientOptions> & { key?: string } = {}): TestClient {
  const cacheDir = overrides.cacheDir ?? mkdtempSync(path.join(os.tmpdir(), 'swath-api-test-'));
  const attempts: AttemptEvent[] = [];
  const logs: string[] = [];
  const delays: number[] = [];
  // Explicit empty proxy settings: the tests must not depend on the machine's HTTP(S)_PROXY.
  const fetch = overrides.fetch ?? createNodeFetch({ httpProxy: '', httpsProxy: '', noProxy: '' });
  const { key = 'demo-key', ...rest } = overrides;
  const client = new ServiceClient({
    baseUrl,
    getKey: async () => key,
    cacheDir,
    fetch,
    log: (l) => logs.push(l),
    onAttempt: (e) => attempts.push(e),
    ...rest,
    retry: {
      sleep: async (ms) => { delays.push(ms); },
      ...rest.retry,
    },
  });
  let closed = false;
  return {
    client, attempts, logs, delays, cacheDir,
    close: async () => {
      if (closed) return;
      closed = true;
      if (!overrides.fetch) await (fetch as ReturnType<typeof createNodeFetch>).close();
      if (!overrides.cacheDir) rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

/** A tiny loopback HTTP server driven by a handler; for shapes the simulator cannot produce. */
export interface ScriptServer {
  url: string;
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

/** Starts a loopback server whose handler sees each request with its body read. */
export async function startScriptServer(
  handler: (req: IncomingMessage & { body: string }, res: ServerResponse, index: number) => void | Promise<void>,
): Promise<ScriptServer> {
  const requests: ScriptServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const index = requests.length;
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      Promise.resolve(handler(Object.assign(req, { body }), res, index)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Writes an envelope response. */
export function sendEnvelope(res: ServerResponse, status: number, envelope: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(envelope);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Reads a web stream to one buffer. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** A reverse proxy in front of the simulator that serves a doctored specification. */
export async function startDoctoringProxy(target: string, doctor: (spec: any) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    if (req.url === '/api/specification.json') {
      const spec: any = await (await fetch(`${target}/api/specification.json`)).json();
      doctor(spec);
      const text = JSON.stringify(spec);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
      return;
    }
    // The simulator answers only to its own Host (DNS-rebinding guard), as a real reverse proxy would send.
    const up = http.request(`${target}${req.url}`, { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => { server.closeAllConnections(); await new Promise<void>((r) => server.close(() => r())); },
  };
}
