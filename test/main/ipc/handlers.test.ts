import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDispatcher, createHandlers, type ServiceEndpoint } from '../../../main/ipc';

/** Real HTTP on loopback: a minimal peer that checks the key the way the service does. */
let server: Server;
let baseUrl: string;
let lastRequest: IncomingMessage | null = null;
let mode: 'ok' | 'slow' | 'error' = 'ok';

beforeAll(async () => {
  server = createServer((req, res) => {
    lastRequest = req;
    if (req.url !== '/api/account/info') {
      res.writeHead(404).end();
      return;
    }
    if (req.headers['x-api-key'] !== 'demo-key') {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"Succeeded":false}');
      return;
    }
    if (mode === 'slow') return; // never answers
    if (mode === 'error') {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"Succeeded":true,"Data":{}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const TRUSTED = 'file:///app/index.html';

function setup(service: Partial<ServiceEndpoint> = {}, pingTimeoutMs = 2_000) {
  const onConnectionState = vi.fn();
  const endpoint: ServiceEndpoint = { label: 'Demo service (offline)', baseUrl, demo: true, apiKey: 'demo-key', ...service };
  const dispatcher = createDispatcher(
    createHandlers({ version: '9.9.9', platform: 'linux', service: async () => endpoint, onConnectionState, pingTimeoutMs }),
    { isAllowedSender: (url) => url === TRUSTED },
  );
  return { dispatcher, onConnectionState };
}

describe('app:info', () => {
  it('reports version, platform and the service without its key', async () => {
    const { dispatcher } = setup();
    const result = await dispatcher.dispatch('app:info', {}, TRUSTED);
    expect(result).toEqual({
      ok: true,
      data: {
        version: '9.9.9',
        platform: 'linux',
        service: { label: 'Demo service (offline)', baseUrl, demo: true },
        contractVersion: '1.0.0',
      },
    });
    expect(JSON.stringify(result)).not.toContain('demo-key');
  });

  it('fails with an error result when the service could not start', async () => {
    const dispatcher = createDispatcher(
      createHandlers({ version: '1', platform: 'linux', service: () => Promise.reject(new Error('simulator crashed')) }),
      { isAllowedSender: () => true },
    );
    expect(await dispatcher.dispatch('app:info', {}, TRUSTED)).toEqual({ ok: false, error: { kind: 'io', message: 'simulator crashed' } });
  });
});

describe('service:ping', () => {
  it('calls GET {base}/api/account/info with the key and reports reachable', async () => {
    mode = 'ok';
    const { dispatcher, onConnectionState } = setup({ baseUrl: `${baseUrl}/` });
    const result = await dispatcher.dispatch('service:ping', {}, TRUSTED);
    expect(result).toMatchObject({ ok: true, data: { reachable: true } });
    if (result.ok) expect((result.data as { latencyMs: number }).latencyMs).toBeGreaterThanOrEqual(0);
    expect(lastRequest?.method).toBe('GET');
    expect(lastRequest?.url).toBe('/api/account/info');
    expect(lastRequest?.headers['x-api-key']).toBe('demo-key');
    expect(onConnectionState).toHaveBeenLastCalledWith('online', undefined);
  });

  it('reports a rejected key as an auth error', async () => {
    mode = 'ok';
    const { dispatcher, onConnectionState } = setup({ apiKey: 'wrong' });
    expect(await dispatcher.dispatch('service:ping', {}, TRUSTED)).toMatchObject({ ok: false, error: { kind: 'auth' } });
    expect(onConnectionState).toHaveBeenLastCalledWith('offline', expect.stringContaining('rejected'));
  });

  it('reports a server error as unreachable', async () => {
    mode = 'error';
    const { dispatcher, onConnectionState } = setup();
    expect(await dispatcher.dispatch('service:ping', {}, TRUSTED)).toMatchObject({ ok: true, data: { reachable: false } });
    expect(onConnectionState).toHaveBeenLastCalledWith('offline', expect.stringContaining('503'));
  });

  it('reports a closed port as unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { dispatcher, onConnectionState } = setup({ baseUrl: `http://127.0.0.1:${port}` });
    expect(await dispatcher.dispatch('service:ping', {}, TRUSTED)).toMatchObject({ ok: true, data: { reachable: false } });
    expect(onConnectionState).toHaveBeenLastCalledWith('offline', 'The service could not be reached.');
  });

  it('gives up after the timeout and reports unreachable', async () => {
    mode = 'slow';
    const { dispatcher, onConnectionState } = setup({}, 200);
    const started = Date.now();
    const result = await dispatcher.dispatch('service:ping', {}, TRUSTED);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(result).toMatchObject({ ok: true, data: { reachable: false } });
    expect(onConnectionState).toHaveBeenLastCalledWith('offline', 'The service did not answer in time.');
    mode = 'ok';
  });
});
