import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBrowserHost, type BrowserHost } from '../../../main/hosts/browser-host';
import { channelNames } from '../../../preload/contract';
import { startTestSim, type TestSim } from '../../simulator/helpers.js';
import { startTestApp, type TestApp } from './helpers.js';
import { SecretRegistry } from '../../../main/platform/secrets';

// DNS rebinding (Host), foreign web pages (Origin), and the embedded service's key.

/** A raw request, so Host and Origin can be anything (fetch forbids setting Host). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the simulator answers only as itself on loopback', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());
  const port = () => new URL(t.url).port;

  it('refuses a rebound name in Host, for the spec and for keyed calls', async () => {
    for (const p of ['/api/specification.json', '/api/account/info']) {
      const res = await rawGet(`${t.url}${p}`, { host: `rebind.evil.example:${port()}`, 'x-api-key': 'demo-key' });
      expect(res.status, p).toBe(421);
      expect(res.body).not.toContain('TenantId');
    }
    expect((await rawGet(`${t.url}/api/account/info`, { host: `127.0.0.1:${Number(port()) + 1}`, 'x-api-key': 'demo-key' })).status).toBe(421);
  });

  it('accepts 127.0.0.1 and localhost with its port', async () => {
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`]) {
      const res = await rawGet(`${t.url}/api/account/info`, { host, 'x-api-key': 'demo-key' });
      expect(res.status, host).toBe(200);
    }
  });

  it('refuses requests a foreign web page makes (its Origin), even with the documented key', async () => {
    const res = await rawGet(`${t.url}/api/account/info`, { host: `127.0.0.1:${port()}`, origin: 'https://evil.example', 'x-api-key': 'demo-key' });
    expect(res.status).toBe(403);
    expect(res.body).not.toContain('TenantId');
    expect((await rawGet(`${t.url}/api/account/info`, { host: `127.0.0.1:${port()}`, origin: 'null', 'x-api-key': 'demo-key' })).status).toBe(403);
  });

  it('`npm run simulator` (no apiKeys) keeps the documented demo keys', async () => {
    expect((await t.call('GET', '/api/account/info', undefined, 'demo-key')).status).toBe(200);
    expect((await t.call('GET', '/api/account/info', undefined, 'demo-key-empty')).json.Data.MaxConcurrentConnections).toBe(4);
    expect((await t.call('GET', '/api/account/info', undefined, 'demo-key-revoked')).status).toBe(403);
  });

  it('with apiKeys it accepts only those keys, each acting as its documented account', async () => {
    const only = await startTestSim({ apiKeys: { 'per-run-random-key-123456': 'demo-key' } });
    try {
      const res = await only.call('GET', '/api/account/info', undefined, 'per-run-random-key-123456');
      expect(res.json.Data.MaxConcurrentConnections).toBe(8);
      for (const k of ['demo-key', 'demo-key-empty', 'toString', '__proto__']) {
        expect((await only.call('GET', '/api/account/info', undefined, k)).status, k).toBe(401);
      }
    } finally {
      await only.close();
    }
  });
});

describe('the embedded demo service has a random key per run, kept in main', () => {
  let a: TestApp;
  beforeAll(async () => { a = await startTestApp(); });
  afterAll(() => a.close());

  it('works for the app, refuses the documented key, and nothing of the key reaches the renderer', async () => {
    expect((await a.call('service:ping')).data.reachable).toBe(true);
    const status = (await a.call('service:status')).data;
    const res = await fetch(`${status.baseUrl}/api/account/info`, { headers: { 'x-api-key': 'demo-key' } });
    expect(res.status).toBe(401);
    const listing = (await a.call('profiles:list')).data;
    expect(listing.profiles[0]).toMatchObject({ id: 'demo', keySet: true, keyLast4: null });
    expect(JSON.stringify([listing, status, a.logs])).not.toMatch(/demo-[\w-]{32}/);
  });

  it('a second app gets a different key: the first key does not open the second service', async () => {
    const b = await startTestApp();
    try {
      expect((await b.call('service:ping')).data.reachable).toBe(true);
      expect((await a.call('service:ping')).data.reachable).toBe(true);
    } finally {
      await b.close();
    }
  });
});

describe('the browser host answers only as itself on loopback', () => {
  let host: BrowserHost;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-bh-sec-'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><html><head></head><body>renderer</body></html>');
    // No channel is called here; every one refuses.
    const handlers = Object.fromEntries(channelNames.map((c) => [c, () => { throw new Error('not in this test'); }]));
    host = await startBrowserHost({ rendererDir: dir, handlers: handlers as never, secrets: new SecretRegistry() });
  });
  afterAll(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a rebound Host for pages and for the WebSocket', async () => {
    const port = new URL(host.origin).port;
    expect((await rawGet(host.url, { host: `127.0.0.1:${port}` })).status).toBe(200);
    expect((await rawGet(host.url, { host: `localhost:${port}` })).status).toBe(200);
    const rebound = await rawGet(host.url, { host: `rebind.evil.example:${port}` });
    expect(rebound.status).toBe(421);
    expect(rebound.body).not.toContain('renderer');
    const ws = (hostHeader: string) => new Promise<number | 'open'>((resolve) => {
      const s = new WebSocket(`${host.origin.replace('http', 'ws')}/__swath/ws?token=${host.token}`, { origin: host.origin, headers: { host: hostHeader } });
      s.on('open', () => { s.close(); resolve('open'); });
      s.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      s.on('error', () => resolve(0));
    });
    expect(await ws(`127.0.0.1:${port}`)).toBe('open');
    expect(await ws(`rebind.evil.example:${port}`)).toBe(403);
  });
});
