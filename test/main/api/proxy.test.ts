import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeFetch } from '../../../main/api/http.js';
import { startTestSim, type TestSim } from '../../simulator/helpers.js';
import { makeClient } from './helpers.js';

/** A minimal corporate-style proxy: HTTP CONNECT tunnels only, counting each tunnel and its target. */
async function startConnectProxy(): Promise<{ url: string; connects: string[]; close(): Promise<void> }> {
  const connects: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => { res.writeHead(405); res.end('CONNECT only'); });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => { client.destroy(); upstream.destroy(); });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('corporate proxy (HTTP CONNECT) with undici', () => {
  let t: TestSim;
  let proxy: Awaited<ReturnType<typeof startConnectProxy>>;
  beforeAll(async () => {
    t = await startTestSim();
    proxy = await startConnectProxy();
  });
  afterAll(async () => { await proxy.close(); await t.close(); });

  it('tunnels every call through the configured proxy', async () => {
    const fetch = createNodeFetch({ httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: '' });
    const c = makeClient(t.url, { fetch });
    const r = await c.client.connect();
    expect(r.account.TenantId).toBeDefined();
    await c.client.billingSummary();
    expect(proxy.connects.length).toBeGreaterThanOrEqual(1);
    expect(new Set(proxy.connects)).toEqual(new Set([`127.0.0.1:${t.sim.port}`]));
    await c.close();
    await fetch.close();
  });

  it('NO_PROXY bypasses the proxy for listed hosts', async () => {
    const before = proxy.connects.length;
    const fetch = createNodeFetch({ httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: 'localhost,127.0.0.1' });
    const c = makeClient(t.url, { fetch });
    await c.client.connect();
    await c.client.accountSettings();
    expect(proxy.connects.length).toBe(before);
    await c.close();
    await fetch.close();
  });

  it('a dead proxy is a transient error naming the service address, not a hang', async () => {
    const fetch = createNodeFetch({ httpProxy: 'http://127.0.0.1:9', noProxy: '' });
    const c = makeClient(t.url, { fetch, retry: { maxAttempts: 1 } });
    await expect(c.client.accountInfo()).rejects.toMatchObject({ kind: 'transient', message: expect.stringContaining(t.url) });
    await c.close();
    await fetch.close();
  });
});
