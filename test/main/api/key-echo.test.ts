import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../simulator/helpers.js';
import { makeClient, type TestClient } from './helpers.js';

describe('the key the production service echoes in account info', () => {
  let t: TestSim;
  let c: TestClient;
  beforeAll(async () => {
    t = await startTestSim();
    c = makeClient(t.url);
  });
  afterAll(async () => { await c.close(); await t.close(); });

  it('is sent by the simulator but never leaves the transport', async () => {
    expect((await t.call('GET', '/api/account/info')).json.Data.Key).toBe('demo-key');
    const info = await c.client.accountInfo();
    expect(JSON.stringify(info)).not.toContain('demo-key');
    expect(info).toHaveProperty('MaxConcurrentConnections', 8);
  });
});
