import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../common/errors.js';
import { ApiError, classifyFailure } from '../../../main/api/errors.js';
import { toIpcError } from '../../../main/ipc/errors.js';
import { contentDispositionFileName } from '../../../main/api/content-disposition.js';
import { SMALL_AOI, startTestSim } from '../../simulator/helpers.js';
import { makeClient, sendEnvelope, startScriptServer, type ScriptServer, type TestClient } from './helpers.js';

const OK = (data: unknown) => ({ Data: data, Succeeded: true });
const FAIL = (code: number, message: string, data: unknown = null) => ({ Data: data, Succeeded: false, Error: { Message: message, Code: code } });

describe('envelope classification', () => {
  it('maps status and code onto kinds', () => {
    expect(classifyFailure(400, 992, true)).toBe('validation');
    expect(classifyFailure(400, null, true)).toBe('validation');
    expect(classifyFailure(400, 993, false)).toBe('invalid');
    expect(classifyFailure(415, 993, true)).toBe('invalid');
    expect(classifyFailure(400, 994, false)).toBe('credit');
    expect(classifyFailure(400, 1002, false)).toBe('coverage');
    expect(classifyFailure(400, 1006, false)).toBe('coverage');
    expect(classifyFailure(400, 1004, true)).toBe('limit');
    expect(classifyFailure(400, 1005, true)).toBe('limit');
    expect(classifyFailure(400, 1003, false)).toBe('rate-limited');
    expect(classifyFailure(401, 401, false)).toBe('auth');
    expect(classifyFailure(403, 992, true)).toBe('auth');
    expect(classifyFailure(404, 404, false)).toBe('not-found');
    expect(classifyFailure(429, null, false)).toBe('rate-limited');
    expect(classifyFailure(500, 994, false)).toBe('transient');
    expect(classifyFailure(503, null, false)).toBe('transient');
  });

  it('maps ApiError kinds onto IPC kinds; business refusals show as validation with the service message', () => {
    const fields = { Bandnames: ['At most 6 bands per request.'] };
    expect(toIpcError(new ApiError('limit', 'Too many bands: 10 requested.', { fields }))).toEqual({ kind: 'validation', message: 'Too many bands: 10 requested.', fields });
    expect(toIpcError(new ApiError('credit', 'Not enough credit.'))).toEqual({ kind: 'validation', message: 'Not enough credit.' });
    expect(toIpcError(new ApiError('coverage', 'x')).kind).toBe('validation');
    expect(toIpcError(new ApiError('invalid', 'x')).kind).toBe('validation');
    for (const k of ['validation', 'auth', 'not-found', 'rate-limited', 'transient', 'cancelled'] as const) expect(toIpcError(new ApiError(k, 'x')).kind).toBe(k);
    expect(toIpcError(new AppError('keychain', 'No Secret Service'))).toEqual({ kind: 'keychain', message: 'No Secret Service' });
    expect(toIpcError(new DOMException('aborted', 'AbortError')).kind).toBe('cancelled');
    expect(toIpcError(new Error('disk full'))).toEqual({ kind: 'io', message: 'disk full' });
  });

  it('reads Content-Disposition file names raw (filename* first)', () => {
    expect(contentDispositionFileName('attachment; filename="composite_20261101.tif"')).toBe('composite_20261101.tif');
    expect(contentDispositionFileName('attachment; filename=plain.tif')).toBe('plain.tif');
    expect(contentDispositionFileName(`attachment; filename="a.tif"; filename*=UTF-8''%C3%BCber%20x.tif`)).toBe('über x.tif');
    expect(contentDispositionFileName('attachment; filename="..\\\\..\\\\evil.tif"')).toBe('..\\..\\evil.tif');
    expect(contentDispositionFileName('attachment; filename="../../etc/passwd"')).toBe('../../etc/passwd');
    expect(contentDispositionFileName('inline')).toBeNull();
    expect(contentDispositionFileName(null)).toBeNull();
  });

  it('reads quoted, unquoted and RFC 5987 names, preferring filename*', () => {
    expect(contentDispositionFileName('attachment; filename="composite_1.tif"')).toBe('composite_1.tif');
    expect(contentDispositionFileName('attachment; filename=plain.tif')).toBe('plain.tif');
    expect(contentDispositionFileName('attachment; filename="a \\"q\\".tif"')).toBe('a "q".tif');
    expect(contentDispositionFileName("attachment; filename=\"fallback.tif\"; filename*=UTF-8''S%C3%A3o%20Paulo.tif")).toBe('São Paulo.tif');
    expect(contentDispositionFileName("attachment; filename*=iso-8859-1'en'M%FCnchen.tif")).toBe('München.tif');
    expect(contentDispositionFileName('ATTACHMENT; FILENAME="upper.tif"')).toBe('upper.tif');
  });

  it('falls back to filename when filename* is malformed, and returns null without a name', () => {
    expect(contentDispositionFileName("attachment; filename*=UTF-8''%E0%A4%A; filename=\"ok.tif\"")).toBe('ok.tif');
    expect(contentDispositionFileName("attachment; filename*=KOI8-R''x.tif; filename=ok.tif")).toBe('ok.tif');
    expect(contentDispositionFileName('attachment')).toBeNull();
    expect(contentDispositionFileName('')).toBeNull();
    expect(contentDispositionFileName(null)).toBeNull();
  });

  it('takes the first of duplicated parameters', () => {
    expect(contentDispositionFileName('attachment; filename="first.tif"; filename="../../second.tif"')).toBe('first.tif');
  });
});

describe('transport', () => {
  let s: ScriptServer;
  let c: TestClient;
  afterEach(async () => { await c?.close(); await s?.close(); });

  it('sends x-api-key on every call and Content-Type only with a body, under the base path', async () => {
    s = await startScriptServer((_req, res) => sendEnvelope(res, 200, OK({ ok: true })));
    c = makeClient(`${s.url}/service/`, { key: 'k-123456' });
    await c.client.accountInfo();
    await c.client.searchAvailable({ Wkt: SMALL_AOI, From: '2026-01-01' }, undefined, { validate: false });
    const [get, post] = s.requests;
    expect(get).toMatchObject({ method: 'GET', url: '/service/api/account/info' });
    expect(get!.headers['x-api-key']).toBe('k-123456');
    expect(get!.headers['content-type']).toBeUndefined();
    expect(post).toMatchObject({ method: 'POST', url: '/service/api/satelliteimages/search/available' });
    expect(post!.headers['x-api-key']).toBe('k-123456');
    expect(post!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(post!.body)).toEqual({ Wkt: SMALL_AOI, From: '2026-01-01' });
  });

  it('asks getKey on every attempt, so a rotated key is used at once', async () => {
    s = await startScriptServer((_req, res) => sendEnvelope(res, 200, OK({})));
    let key = 'first-key';
    c = makeClient(s.url, { getKey: async () => key });
    await c.client.accountSettings();
    key = 'second-key';
    await c.client.accountSettings();
    expect(s.requests.map((r) => r.headers['x-api-key'])).toEqual(['first-key', 'second-key']);
  });

  it('times out a silent service as transient, and aborts promptly as cancelled', async () => {
    // Never answers; records which requests' connections the client closed.
    const closed = new Set<number>();
    s = await startScriptServer((_req, res, index) => void res.on('close', () => closed.add(index)));
    c = makeClient(s.url, { timeoutMs: 100, retry: { maxAttempts: 2 } });
    const e = await c.client.accountSettings().catch((x: unknown) => x as ApiError);
    expect(e).toMatchObject({ kind: 'transient', status: null });
    expect(e.message).toMatch(/did not answer GET \/api\/account\/settings within 0.1 s/);
    // Two attempts, each ended by the timeout (the client's count: on a loaded machine an attempt can
    // time out before the service has read its request, so the service may have seen fewer).
    expect(c.attempts.map((a) => [a.attempt, a.kind, a.status])).toEqual([[1, 'transient', null], [2, 'transient', null]]);
    expect(s.requests.length).toBeLessThanOrEqual(2);

    // Aborted once the request is at the service (which never answers). Its own timeout is far past the
    // test's, so only the abort can settle it.
    const seen = s.requests.length;
    const ac = new AbortController();
    const p = c.client.accountSettings(ac.signal, { timeoutMs: 3_600_000 });
    await expect.poll(() => s.requests.length).toBe(seen + 1);
    ac.abort();
    await expect(p).rejects.toMatchObject({ kind: 'cancelled' });
    expect(s.requests).toHaveLength(seen + 1);
    // The request itself was stopped, not only its promise: the service sees its connection close.
    await expect.poll(() => closed.has(seen), { timeout: 10_000 }).toBe(true);
    await expect(c.client.accountSettings(AbortSignal.abort())).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it('reports an unreachable service as transient with the address, and goes offline', async () => {
    const t = await startTestSim();
    const url = t.url;
    c = makeClient(url, { retry: { maxAttempts: 2 } });
    await c.client.connect();
    await t.close();
    const e = await c.client.accountSettings().catch((x: unknown) => x as ApiError);
    expect(e.kind).toBe('transient');
    expect(e.message).toContain(url);
    expect(e.message).toMatch(/ECONNREFUSED/);
    expect(c.client.connectionState).toBe('offline');
  });

  it('does not follow redirects (the key would travel along)', async () => {
    const target = await startScriptServer((_req, res) => sendEnvelope(res, 200, OK({})));
    s = await startScriptServer((_req, res) => { res.writeHead(302, { location: `${target.url}/api/account/info` }); res.end(); });
    c = makeClient(s.url);
    const e = await c.client.accountInfo().catch((x: unknown) => x as ApiError);
    expect(e).toMatchObject({ kind: 'invalid', status: 302 });
    expect(e.message).toMatch(/redirected/);
    expect(target.requests).toHaveLength(0);
    await target.close();
  });

  it('treats an unreadable 200 body as transient, and a non-envelope error page by its status', async () => {
    s = await startScriptServer((_req, res, i) => {
      if (i === 0) { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"Data": {"trunc'); return; }
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    });
    c = makeClient(s.url);
    const a = await c.client.accountSettings(undefined, { retry: false }).catch((x: unknown) => x as ApiError);
    expect(a.kind).toBe('transient');
    const b = await c.client.accountSettings(undefined, { retry: false }).catch((x: unknown) => x as ApiError);
    expect(b).toMatchObject({ kind: 'transient', status: 502 });
  });

  it('a 200 envelope with Succeeded false is still a failure', async () => {
    s = await startScriptServer((_req, res) => sendEnvelope(res, 200, FAIL(994, 'Not enough credit.')));
    c = makeClient(s.url);
    await expect(c.client.billingSummary()).rejects.toMatchObject({ kind: 'credit', code: 994, status: 200 });
  });
});

describe('the API key never appears in errors or logs', () => {
  const KEY = 'sk-live-7f3a9c1e5b2d4a68';
  let s: ScriptServer;
  let c: TestClient;
  afterEach(async () => { await c?.close(); await s?.close(); });

  function assertClean(values: unknown[], logs: string[]): void {
    for (const v of values) {
      const texts = [String(v), inspect(v, { depth: 10, showHidden: true }), JSON.stringify(v), JSON.stringify(toIpcError(v)), (v as Error)?.stack ?? ''];
      for (const text of texts) expect(text).not.toContain(KEY);
    }
    expect(logs.length).toBeGreaterThan(0);
    for (const l of logs) expect(l).not.toContain(KEY);
  }

  it('masks a key the service echoes back in messages, fields, redirects and 5xx bodies', async () => {
    s = await startScriptServer((req, res, i) => {
      const k = String(req.headers['x-api-key']);
      if (i === 0) return sendEnvelope(res, 401, FAIL(401, `The API key '${k}' is not valid.`));
      if (i === 1) return sendEnvelope(res, 400, FAIL(992, `Key ${k} is wrong.`, { [k]: [`value ${k}`] }));
      if (i === 2) { res.writeHead(301, { location: `https://elsewhere.example/?key=${k}` }); res.end(); return; }
      return sendEnvelope(res, 503, FAIL(500, `backend saw ${k}`));
    });
    c = makeClient(s.url, { key: KEY, retry: { maxAttempts: 2 } });
    const errors: unknown[] = [];
    for (let i = 0; i < 4; i++) errors.push(await c.client.accountSettings().catch((e: unknown) => e));
    expect(errors.map((e) => (e as ApiError).kind)).toEqual(['auth', 'validation', 'invalid', 'transient']);
    expect((errors[0] as ApiError).message).toContain('•••• 4a68');
    assertClean(errors, c.logs);
  });

  it('masks the key in network errors, including a key fetch would refuse as a header value', async () => {
    const t = await startTestSim();
    const url = t.url;
    await t.close();
    c = makeClient(url, { key: KEY, retry: { maxAttempts: 1 } });
    const refused = await c.client.accountInfo().catch((e: unknown) => e);
    const bad = makeClient(url, { getKey: async () => `${KEY}\nx-evil: 1` });
    const header = await bad.client.accountInfo().catch((e: unknown) => e);
    expect(header).toMatchObject({ kind: 'auth' });
    expect((header as Error).message).toMatch(/cannot be sent in an HTTP header/);
    const empty = makeClient(url, { getKey: async () => '  ' });
    expect(await empty.client.accountInfo().catch((e: unknown) => e)).toMatchObject({ kind: 'auth', message: expect.stringMatching(/No API key/) });
    assertClean([refused, header], [...c.logs, ...bad.logs]);
    await bad.close();
    await empty.close();
  });

  it('against the simulator: revoked and unknown keys, validation and downloads leave no trace of the key', async () => {
    const t = await startTestSim();
    const logs: string[] = [];
    const errs: unknown[] = [];
    for (const key of ['demo-key-revoked', 'not-a-key-1234567']) {
      const k = makeClient(t.url, { key, log: (l) => logs.push(l) });
      errs.push(await k.client.connect().catch((e: unknown) => e));
      for (const e of errs) expect(String(inspect(e))).not.toContain(key);
      await k.close();
    }
    const d = makeClient(t.url, { log: (l) => logs.push(l) });
    errs.push(await d.client.processComposite({ Wkt: SMALL_AOI, Date: '2026-11-01', Model: 'Stratus2', Resolution: 15 }).catch((e: unknown) => e));
    for (const e of errs) expect(inspect(e, { depth: 10 })).not.toMatch(/demo-key|not-a-key/);
    for (const l of logs) expect(l).not.toMatch(/demo-key|not-a-key/);
    await d.close();
    await t.close();
  });
});
