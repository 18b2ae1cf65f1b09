import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactionMark } from '../../../preload/contract/redaction';
import { startTestApp, type TestApp } from './helpers.js';

// One secret registry per app core, injected by the composition root; no global.
// Two cores in one process each mask the keys they hold and never learn each other's.

const KEY_A = 'sk-live-CORE-A-ONLY-KEY-1a2b';
const KEY_B = 'sk-live-CORE-B-ONLY-KEY-3c4d';

describe('two app cores in one process', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
    expect(await a.call('profiles:create', { name: 'Service A', baseUrl: 'https://imagery.a.example', key: KEY_A })).toMatchObject({ ok: true });
    expect(await b.call('profiles:create', { name: 'Service B', baseUrl: 'https://imagery.b.example', key: KEY_B })).toMatchObject({ ok: true });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('each masks its own key in what it answers and logs', async () => {
    for (const [core, key] of [[a, KEY_A], [b, KEY_B]] as const) {
      const res = await core.call('profiles:create', { name: `Echo ${key}`, baseUrl: 'https://imagery.echo.example' });
      expect(res).toMatchObject({ ok: true, data: { name: `Echo ${redactionMark(key)}` } });
      expect(JSON.stringify(res)).not.toContain(key);
      expect(core.logs.join('\n')).not.toContain(key);
    }
  });

  it('neither learns the other one’s key: its registry does not hold it, its answers pass it on as plain text', async () => {
    expect(a.app.secrets.leaks(KEY_A)).toBe(true);
    expect(b.app.secrets.leaks(KEY_B)).toBe(true);
    expect(a.app.secrets.leaks(KEY_B)).toBe(false);
    expect(b.app.secrets.leaks(KEY_A)).toBe(false);
    // To core B, core A's key is just text: nothing in B masks it, so nothing in B was told it.
    const res = await b.call('profiles:create', { name: `Not mine ${KEY_A}`, baseUrl: 'https://imagery.other.example' });
    expect(res).toMatchObject({ ok: true, data: { name: `Not mine ${KEY_A}` } });
  });
});
