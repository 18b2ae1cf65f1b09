import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UploadLookup } from '../../../simulator/server';
import { SMALL_AOI, demoDate, startTestSim, type TestSim } from '../../simulator/helpers.js';

// UploadUrl is checked once, and the upload goes exactly where it was checked.

interface Receiver { url: string; port: number; got: { method: string; url: string; bytes: number }[]; close(): Promise<void> }

async function receiver(answer: (url: string) => { status: number; location?: string }): Promise<Receiver> {
  const got: Receiver['got'] = [];
  const server = http.createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => { bytes += c.length; });
    req.on('end', () => {
      got.push({ method: req.method ?? '', url: req.url ?? '', bytes });
      const a = answer(req.url ?? '');
      res.writeHead(a.status, a.location ? { location: a.location } : {});
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, got, close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

describe('UploadUrl guard', () => {
  let inner: Receiver;
  let outer: Receiver;
  let t: TestSim;
  let date: string;
  // A resolver that answers loopback first and something else afterwards (DNS rebinding).
  const asked: string[] = [];
  const answers: Record<string, string[]> = {};
  const lookup: UploadLookup = async (host) => {
    asked.push(host);
    const list = answers[host] ?? ['127.0.0.1'];
    const address = list.length > 1 ? list.shift()! : list[0]!;
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  beforeAll(async () => {
    inner = await receiver(() => ({ status: 200 }));
    outer = await receiver((url) => ({ status: Number(/s=(\d+)/.exec(url)?.[1] ?? 303), location: `${inner.url}/stolen` }));
    t = await startTestSim({ uploadLookup: lookup, allowUploadHosts: ['uploads.partner.example'] });
    date = await demoDate(t);
  });
  afterAll(async () => {
    await t.close();
    await outer.close();
    await inner.close();
  });
  const composite = (UploadUrl: string) => t.call('POST', '/api/satelliteimages/process/composite', { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 160, UploadUrl });

  it('does not follow a redirect from the checked target (303 would turn the PUT into a GET elsewhere; 307 would re-send it)', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const r = await composite(`${outer.url}/up?s=${status}`);
      expect(r.status, String(status)).toBe(400);
      expect(r.json.Data.UploadUrl[0]).toMatch(/redirected/);
    }
    expect(outer.got).toHaveLength(5);
    expect(inner.got).toHaveLength(0);
  });

  it('connects to the address it checked: a name that resolves elsewhere a moment later still goes to loopback', async () => {
    answers['uploads.partner.example'] = ['127.0.0.1', '10.255.255.1'];
    asked.length = 0;
    const r = await composite(`http://uploads.partner.example:${inner.port}/pinned`);
    expect(r.status).toBe(201);
    expect(asked).toEqual(['uploads.partner.example']);
    expect(inner.got.at(-1)).toMatchObject({ method: 'PUT', url: '/pinned' });
    expect(inner.got.at(-1)!.bytes).toBeGreaterThan(1000);
  });

  it('refuses "localhost" when it resolves to an address that is not loopback', async () => {
    answers.localhost = ['192.168.7.7'];
    const before = inner.got.length;
    const r = await composite(`http://localhost:${inner.port}/x`);
    expect(r.status).toBe(400);
    expect(r.json.Data.UploadUrl[0]).toMatch(/resolves to 192\.168\.7\.7.*not a loopback/);
    expect(inner.got.length).toBe(before);
    delete answers.localhost;
  });

  it('still uploads to a plain loopback target', async () => {
    const r = await composite(`${inner.url}/ok`);
    expect(r.status).toBe(201);
    expect(inner.got.at(-1)).toMatchObject({ method: 'PUT', url: '/ok' });
  });
});
