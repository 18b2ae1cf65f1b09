import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceDidNothing } from '../../../main/downloads/index.js';
import { clientBinarySource } from '../../../main/connection/binary-source.js';
import { makeClient } from '../api/helpers.js';
import { SMALL_AOI, demoDate, startTestSim, type TestSim } from '../../simulator/helpers.js';

// What the product's own client reports when a paid POST fails, over real loopback HTTP, and whether
// the queue may send it again on its own: only when the service surely did nothing with it.

let clean: TestSim;
let date: string;
beforeAll(async () => {
  clean = await startTestSim();
  date = await demoDate(clean);
});
afterAll(async () => {
  await clean.close();
});

/** The error of one composite POST through the app's binary source, against `url`. */
async function failure(url: string): Promise<unknown> {
  const c = makeClient(url);
  try {
    const source = clientBinarySource(async () => c.client);
    const body = { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 80, EpsgProjection: 32633, Bandnames: 'B4' };
    return await source.fetchBinary('composite', body, AbortSignal.timeout(30_000)).then(() => null, (e: unknown) => e);
  } finally {
    await c.close();
  }
}

async function withFaults<T>(faults: string, f: (url: string) => Promise<T>): Promise<T> {
  const sim = await startTestSim({ faults, cacheDir: path.join(clean.dir, 'cache') });
  try {
    return await f(sim.url);
  } finally {
    await sim.close();
  }
}

describe('serviceDidNothing on what the API client reports', () => {
  it('is true for a refused connection and a 503 answered before anything', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = await failure(`http://127.0.0.1:${port}`);
    expect(refused).toMatchObject({ kind: 'transient', message: expect.stringMatching(/^Could not reach the service .*ECONNREFUSED/) });
    expect(serviceDidNothing(refused)).toBe(true);

    const unavailable = await withFaults('5xx=1', failure);
    expect(unavailable).toMatchObject({ kind: 'transient', status: 503 });
    expect(serviceDidNothing(unavailable)).toBe(true);
  });

  it('is false for a connection reset (the service may have had the request) and for a 404 answer', async () => {
    const reset = await withFaults('reset=1', failure);
    expect(reset).toMatchObject({ kind: 'transient' });
    expect(serviceDidNothing(reset)).toBe(false);

    const invalid = await failure(clean.url.replace(/\/$/, '') + '/nowhere');
    expect(invalid).not.toBeNull();
    expect(serviceDidNothing(invalid)).toBe(false);
  });
});
