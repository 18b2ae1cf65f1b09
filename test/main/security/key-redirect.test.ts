import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedirectRefusedError, createNodeFetch, type HttpFetch } from '../../../main/api';
import { makeClient } from '../api/helpers.js';
import { startRecorder, startTestApp, type Recorder, type TestApp } from './helpers.js';

// A 30x from the service must never deliver x-api-key to the redirect target.

const SECRET = 'sk-live-REDIRECT-SECRET-77aa';
const STATUSES = [301, 302, 303, 307, 308];

describe('requests that carry the key refuse redirects', () => {
  let target: Recorder;
  let redirector: Recorder;
  let t: TestApp;
  beforeAll(async () => {
    // Another origin (localhost, not 127.0.0.1) that would gladly take the key.
    target = await startRecorder((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"Data":{},"Succeeded":true}'); }, { host: 'localhost' });
    redirector = await startRecorder((req, res) => {
      const status = Number(/status=(\d+)/.exec(req.url ?? '')?.[1] ?? 302);
      res.writeHead(status, { location: `${target.url}/api/account/info` });
      res.end();
    });
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
    await redirector.close();
    await target.close();
  });

  it('"Test key" (the probe) stops at every redirect status, and says why', async () => {
    for (const status of STATUSES) {
      const created = await t.call('profiles:create', { name: `R${status}`, baseUrl: `${redirector.url}/s/status=${status}`, key: SECRET });
      const res = await t.call('profiles:test-key', { id: created.data.id });
      expect(res.data.status, String(status)).toBe('network');
      expect(res.data.message).toMatch(/redirected/);
    }
    expect(redirector.seen.length).toBe(STATUSES.length);
    expect(target.seen).toHaveLength(0);
  });

  it('the service client (ping) stops at a cross-origin 307 too', async () => {
    const created = await t.call('profiles:create', { name: 'R307-ping', baseUrl: `${redirector.url}/p/status=307`, key: SECRET });
    await t.call('profiles:activate', { id: created.data.id });
    await t.call('service:ping');
    await t.call('profiles:activate', { id: 'demo' });
    expect(redirector.seen.some((r) => r.url.startsWith('/p/status=307'))).toBe(true);
    expect(target.seen).toHaveLength(0);
  });

  it('a downgrade from https to http is refused even when the host fetch itself would follow it', async () => {
    const tls = await startRecorder((_req, res) => { res.writeHead(301, { location: `${target.url}/api/account/info` }); res.end(); }, { tls: true });
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    // A raw host fetch with fetch's default redirect: 'follow', trusting the throwaway certificate.
    const hostFetch = ((input: string, init: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher: insecure })) as unknown as HttpFetch;
    const other = await startTestApp({ fetch: hostFetch });
    try {
      const created = await other.call('profiles:create', { name: 'TLS', baseUrl: tls.url, key: SECRET });
      const res = await other.call('profiles:test-key', { id: created.data.id });
      expect(res.data).toMatchObject({ status: 'network', message: expect.stringMatching(/redirected/) });
      await other.call('profiles:activate', { id: created.data.id });
      const info = await other.call('account:info');
      expect(info).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringMatching(/redirected/) } });
      expect(tls.seen.length).toBeGreaterThanOrEqual(2);
      expect(tls.seen.every((r) => r.key === SECRET)).toBe(true);
      expect(target.seen).toHaveLength(0);
    } finally {
      await other.close();
      await tls.close();
      await insecure.close();
    }
  });

  it('the Node host fetch refuses on its own, whatever redirect mode the caller asks for', async () => {
    const f = createNodeFetch({ httpProxy: '', httpsProxy: '', noProxy: '' });
    try {
      const e = await f(`${redirector.url}/n/status=308`, { headers: { 'x-api-key': SECRET }, redirect: 'follow' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RedirectRefusedError);
      expect(e).toMatchObject({ status: 308, location: `${target.url}/api/account/info` });
      expect(target.seen).toHaveLength(0);
    } finally {
      await f.close();
    }
  });

  it('a client built on a following fetch still refuses (the transport wraps what it is given)', async () => {
    const c = makeClient(`${redirector.url}/c/status=302`, { key: SECRET, fetch: ((i: string, init: RequestInit) => fetch(i, init)) as HttpFetch });
    const e = await c.client.accountInfo().catch((x: unknown) => x as { kind: string; status: number });
    expect(e).toMatchObject({ kind: 'invalid', status: 302 });
    expect(target.seen).toHaveLength(0);
    await c.close();
  });
});
