import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Keychain, MemoryKeychainBackend, ProfileStore } from '../../../main/profiles';
import type { ConfirmRequest } from '../../../main/platform/confirm';
import { startRecorder, startTestApp, type Recorder, type TestApp } from './helpers.js';
import { SecretRegistry } from '../../../main/platform/secrets';

// A key is bound to the origin it was entered for.

const SECRET = 'sk-live-ORIGIN-BOUND-SECRET-41c2';
const ACCOUNT = JSON.stringify({ Data: { MaxConcurrentConnections: 2, KeyEnding: '41c2' }, Succeeded: true });
const answer = (req: { url?: string }, res: import('node:http').ServerResponse) => {
  if (req.url?.endsWith('/api/specification.json')) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(ACCOUNT);
};

describe('keys bound to their origin', () => {
  let a: Recorder;
  let b: Recorder;
  beforeAll(async () => {
    a = await startRecorder(answer);
    b = await startRecorder(answer, { host: 'localhost' });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });
  const keyAtB = () => b.seen.filter((r) => r.key === SECRET);

  describe('a compromised renderer (browser host: no native dialog)', () => {
    let t: TestApp;
    let id: string;
    beforeAll(async () => {
      t = await startTestApp();
      id = (await t.call('profiles:create', { name: 'Prod', baseUrl: a.url, key: SECRET })).data.id;
      expect((await t.call('profiles:test-key', { id })).data.status).toBe('ok');
      expect(a.seen.some((r) => r.key === SECRET)).toBe(true);
    });
    afterAll(() => t.close());

    it('repoints the profile; test-key and ping then send nothing with the key to the new origin', async () => {
      const moved = await t.call('profiles:update', { id, baseUrl: b.url });
      expect(moved.data).toMatchObject({ baseUrl: b.url, keySet: true, keyOrigin: a.url, keyNeedsConfirm: true });
      const test = await t.call('profiles:test-key', { id });
      expect(test).toMatchObject({ ok: false, error: { kind: 'auth', message: expect.stringContaining(`entered for ${a.url}`) } });
      await t.call('profiles:activate', { id });
      const ping = await t.call('service:ping');
      expect(ping).toMatchObject({ ok: false, error: { kind: 'auth' } });
      expect((await t.call('account:info')).ok).toBe(false);
      expect(keyAtB()).toHaveLength(0);
    });

    it('cannot confirm the new origin itself: without main\'s dialog the key must be entered again', async () => {
      const res = await t.call('profiles:confirm-origin', { id });
      expect(res).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringMatching(/enter the key again/), fields: { key: [expect.stringContaining(`Key entered for ${a.url}`)] } } });
      expect((await t.call('profiles:test-key', { id })).ok).toBe(false);
      expect(keyAtB()).toHaveLength(0);
      const listing = (await t.call('profiles:list')).data.profiles.find((p: { id: string }) => p.id === id);
      expect(listing).toMatchObject({ keyOrigin: a.url, keyNeedsConfirm: true });
    });

    it('moving back to the origin the key was entered for needs nothing', async () => {
      expect((await t.call('profiles:update', { id, baseUrl: `${a.url}/v2` })).data.keyNeedsConfirm).toBe(false);
      expect((await t.call('profiles:test-key', { id })).data.status).toBe('ok');
      await t.call('profiles:update', { id, baseUrl: b.url });
    });

    it('happy path: the analyst enters the key again for the new origin', async () => {
      const set = await t.call('profiles:set-key', { id, key: SECRET });
      expect(set.data).toMatchObject({ keyOrigin: b.url, keyNeedsConfirm: false });
      expect((await t.call('profiles:test-key', { id })).data.status).toBe('ok');
      expect(keyAtB().length).toBeGreaterThan(0);
    });
  });

  describe('Electron host: main asks in its own dialog', () => {
    let t: TestApp;
    const answers: boolean[] = [];
    const confirm = vi.fn(async (_r: ConfirmRequest) => answers.shift() ?? false);
    beforeAll(async () => { t = await startTestApp({ confirm }); });
    afterAll(() => t.close());

    it('sends the key to the new origin only after the analyst agrees in main\'s dialog', async () => {
      b.seen.length = 0;
      const id = (await t.call('profiles:create', { name: 'Staging', baseUrl: a.url, key: SECRET })).data.id;
      await t.call('profiles:update', { id, baseUrl: b.url });
      answers.push(false);
      expect(await t.call('profiles:confirm-origin', { id })).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
      expect(confirm.mock.calls[0]![0]).toMatchObject({ message: expect.stringContaining(b.url), detail: expect.stringContaining(`entered for ${a.url}`) });
      expect((await t.call('profiles:test-key', { id })).ok).toBe(false);
      expect(keyAtB()).toHaveLength(0);
      answers.push(true);
      const confirmed = await t.call('profiles:confirm-origin', { id });
      expect(confirmed.data).toMatchObject({ keyOrigin: b.url, keyNeedsConfirm: false });
      expect((await t.call('profiles:test-key', { id })).data.status).toBe('ok');
      expect(keyAtB()).toHaveLength(1);
    });
  });

  describe('the store', () => {
    it('binds profiles saved before keys were bound to their base URL as it was', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-legacy-'));
      try {
        const keychain = new Keychain({ backend: new MemoryKeychainBackend() });
        await keychain.set('p1', SECRET);
        // A profiles.json from an older version: no keyOrigin.
        writeFileSync(path.join(dir, 'profiles.json'), JSON.stringify({ version: 1, activeProfileId: null, profiles: [{ id: 'p1', name: 'Old', baseUrl: a.url, keyStored: true, createdAt: 'x', updatedAt: 'x' }] }));
        const legacy = await ProfileStore.open({ dir, demoKey: 'x', secrets: new SecretRegistry(), keychain });
        expect(await legacy.getKey('p1')).toBe(SECRET);
        await legacy.update('p1', { baseUrl: b.url });
        await expect(legacy.getKey('p1')).rejects.toMatchObject({ kind: 'auth', name: 'KeyOriginError' });
        // A confirmation for another origin than the current one (changed meanwhile) is refused.
        await expect(legacy.confirmKeyOrigin('p1', 'https://c.example')).rejects.toMatchObject({ kind: 'validation' });
        expect((await legacy.confirmKeyOrigin('p1', b.url)).keyNeedsConfirm).toBe(false);
        expect(await legacy.getKey('p1')).toBe(SECRET);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
