import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ServiceClient, type ServiceClientOptions } from '../../../main/api/client.js';
import { createNodeFetch } from '../../../main/api/http.js';
import type { AttemptEvent } from '../../../main/api/transport.js';
import { SecretRegistry } from '../../../main/platform/secrets.js';

/** A client for tests: no env proxy, no real waits between retries, attempts and log lines recorded. */
export interface TestClient {
  client: ServiceClient;
  /** The client's secret registry (its own, unless `secrets` was given). */
  secrets: SecretRegistry;
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
  const secrets = overrides.secrets ?? new SecretRegistry();
  const client = new ServiceClient({
    baseUrl,
    getKey: async () => key,
    secrets,
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
    client, secrets, attempts, logs, delays, cacheDir,
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
    // The target's own Host, as a real reverse proxy sends it.
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

/** Follows a local "#/components/..." $ref of the specification. */
function resolve(spec: any, schema: any): any {
  return schema?.$ref ? (schema.$ref as string).slice(2).split('/').reduce((o: any, k: string) => o[k], spec) : schema;
}

/** Renames a property in place, keeping its position among its siblings. */
function renameProperty(schema: any, from: string, to: string): void {
  schema.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k === from ? to : k, v]));
}

/**
 * Changes the simulator's specification as a service update might: operations
 * renamed, removed and added; a parameter added; a body property renamed; account
 * info Data fields renamed in place, retyped, removed and added.
 */
export function doctorDrift(spec: any): { renamedFrom: string; retyped: string; removed: string } {
  // Operations: one renamed (similar path), one removed, one added.
  spec.paths['/api/satelliteproducts/acquisition-plans'] = spec.paths['/api/satelliteproducts/acquisitionplans'];
  delete spec.paths['/api/satelliteproducts/acquisitionplans'];
  delete spec.paths['/api/satelliteproducts/satellitezones/composite'];
  spec.paths['/api/account/usage'] = { get: { operationId: 'Account_GetUsage', responses: { 200: { description: 'Usage.', content: { 'application/json': { schema: { type: 'object', properties: { Data: { type: 'object', properties: { Requests: { type: 'integer' } } } } } } } } } } };
  // A new query parameter, a renamed body property (similar name).
  spec.paths['/api/tasking/orders'].get.parameters.push({ name: 'pageSize', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } });
  const tiles = resolve(spec, spec.paths['/api/tasking/search/tiles'].post.requestBody.content['application/json'].schema);
  renameProperty(tiles, 'MaxResults', 'MaxResultCount');
  // Account info Data: one field renamed in place, one retyped, one removed, one added.
  const envelope = resolve(spec, spec.paths['/api/account/info'].get.responses['200'].content['application/json'].schema);
  const data = resolve(spec, envelope.properties.Data);
  // Picked by type, not by name, so this works on any answer style the simulator publishes.
  const names = Object.keys(data.properties);
  const typed = (type: string, not: string[] = []) => names.find((n) => data.properties[n].type === type && !not.includes(n))!;
  const renamedFrom = typed('integer', ['MaxConcurrentConnections']);
  const retyped = typed('number');
  const removed = typed('string');
  renameProperty(data, renamedFrom, 'QuotaOfBands');
  data.properties[retyped] = { type: 'string' };
  delete data.properties[removed];
  data.properties.Region = { type: 'string' };
  return { renamedFrom, retyped, removed };
}
