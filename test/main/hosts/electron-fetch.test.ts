import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestSim, type TestSim } from '../../simulator/helpers.js';
import { makeClient } from '../api/helpers.js';

// net.fetch is Chromium's stack; here it is stood in for by Node's fetch, which has the same WHATWG signature.
const netFetch = vi.fn((input: string, init?: RequestInit) => fetch(input, init));
vi.mock('electron', () => ({ net: { fetch: netFetch } }));

const { createElectronFetch } = await import('../../../main/hosts/electron-fetch');

describe('createElectronFetch', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('sends every service call through net.fetch, unchanged', async () => {
    const c = makeClient(t.url, { fetch: createElectronFetch() });
    const r = await c.client.connect();
    expect(r.account.KeyEnding).toBe('-key');
    await c.client.searchAvailable({ Wkt: 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))', From: '2026-01-01' });
    const urls = netFetch.mock.calls.map(([u]) => u);
    expect(urls).toEqual(expect.arrayContaining([
      `${t.url}/api/specification.json`, `${t.url}/api/account/info`, `${t.url}/api/tasking/models`, `${t.url}/api/satelliteimages/search/available`,
    ]));
    const post = netFetch.mock.calls.find(([u]) => u.endsWith('/search/available'))![1]!;
    expect(post).toMatchObject({ method: 'POST', redirect: 'manual' });
    expect((post.headers as Record<string, string>)['x-api-key']).toBe('demo-key');
    expect((post.headers as Record<string, string>)['content-type']).toBe('application/json');
    expect(post.signal).toBeInstanceOf(AbortSignal);
    await c.close();
  });
});

describe('createElectronFetch and redirects', () => {
  it('never follows a redirect, even though net.fetch would by default: the key stays with the first host', async () => {
    const { startRecorder } = await import('../security/helpers.js');
    const target = await startRecorder((_req, res) => { res.writeHead(200); res.end('{}'); }, { host: 'localhost' });
    const redirector = await startRecorder((_req, res) => { res.writeHead(307, { location: `${target.url}/api/account/info` }); res.end(); });
    try {
      const f = createElectronFetch();
      const e = await f(`${redirector.url}/api/account/info`, { headers: { 'x-api-key': 'electron-secret' } }).then(() => new Error('followed'), (x: unknown) => x as Error);
      expect(e.name).toBe('RedirectRefusedError');
      expect(netFetch.mock.calls.at(-1)![1]).toMatchObject({ redirect: 'manual' });
      expect(target.seen).toHaveLength(0);
    } finally {
      await redirector.close();
      await target.close();
    }
  });
});
