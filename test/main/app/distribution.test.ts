import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodeLog from 'electron-log/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../main/ipc';
import { KEYCHAIN_SERVICE, MemoryKeychainBackend } from '../../../main/profiles';
import { LogRedactor, configureLog, type SwathLog } from '../../../main/logging';
import { SecretRegistry } from '../../../main/platform/secrets';
import { loadPolicy } from '../../../main/policy';
import { createApp, type SwathApp } from '../../../main/app/app';
import { startSimulator } from '../../../simulator';
import { redactionMark } from '../../../preload/contract/redaction';
import { DEMO_ACCOUNT_KEY } from '../../../main/app/embedded-service';

// The app core under an admin policy, through the dispatcher as a renderer reaches it; the
// diagnostics report and the log file are checked for the key, which must be absent.

const SENDER = 'app://swath/index.html';
const KEY = 'sk-live-DIAGNOSTICS-SECRET-41c9';
const OTHER_KEY = 'sk-live-SECOND-SECRET-77aa0e';

describe('app core under an admin policy', () => {
  let dir: string;
  let app: SwathApp;
  let d: Dispatcher;
  let log: SwathLog;
  let saved: { name: string; text: string } | null = null;
  const keychain = new MemoryKeychainBackend();
  const call = async (channel: string, payload: unknown = {}) => d.dispatch(channel, payload, SENDER) as Promise<any>;
  const fixedDir = () => path.join(dir, 'Fixed Imagery');

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-dist-'));
    const userData = path.join(dir, 'userData');
    mkdirSync(userData);
    // A profile that exists from before the policy, with a key in the keychain.
    writeFileSync(path.join(userData, 'profiles.json'), JSON.stringify({
      version: 1, activeProfileId: null,
      profiles: [{ id: 'old', name: 'Production', baseUrl: 'https://old.corp.example', keyStored: true, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' }],
    }));
    await keychain.setPassword(KEYCHAIN_SERVICE, 'old', KEY);
    const policyFile = path.join(dir, 'policy.json');
    writeFileSync(policyFile, JSON.stringify({
      profiles: [{ name: 'Production', baseUrl: 'https://imagery.corp.example/eu' }, { name: 'Staging', baseUrl: 'https://staging.corp.example' }],
      hideDemoService: true,
      basemap: { online: 'none' },
      downloadDir: path.join(dir, 'Fixed Imagery'),
      monthlyBudget: { amount: 250, currency: 'EUR' },
      notifications: false,
    }));
    const secrets = new SecretRegistry();
    log = configureLog(nodeLog.create({ logId: 'distribution-test' }), { dir: path.join(dir, 'logs'), redactor: new LogRedactor(secrets) });
    app = await createApp({
      userDataDir: userData, downloadsDir: path.join(dir, 'Downloads'), version: '2.0.0', platform: 'linux', startSimulator,
      emit: () => undefined, keychainBackend: keychain, log: (l) => log.info(l), secrets,
      distribution: {
        policy: await loadPolicy(policyFile, (l) => log.info(l)), log,
        saveText: async (name, text) => {
          saved = { name, text };
          return path.join(dir, name);
        },
      },
    });
    d = createDispatcher(app.handlers, { isAllowedSender: (u) => u === SENDER, secrets: app.secrets });
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds the policy profiles (re-pointing an existing one), locks them and hides the demo service', async () => {
    const listing = (await call('profiles:list')).data;
    expect(listing.profiles.map((p: any) => [p.name, p.baseUrl])).toEqual([
      ['Production', 'https://imagery.corp.example/eu'],
      ['Staging', 'https://staging.corp.example'],
    ]);
    const prod = listing.profiles[0];
    expect(prod).toMatchObject({ id: 'old', active: true, keySet: true });
    const policy = (await call('policy:get')).data;
    expect(policy).toMatchObject({ status: 'applied', hideDemoService: true, lockedProfileIds: ['old', listing.profiles[1].id], monthlyBudget: { amount: 250, currency: 'EUR' }, notifications: false });
    const update = await call('profiles:update', { id: 'old', baseUrl: 'https://evil.example' });
    expect(update).toMatchObject({ ok: false, error: { kind: 'validation', fields: { id: [expect.stringMatching(/policy/)] } } });
    expect(await call('profiles:delete', { id: 'old' })).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(await call('profiles:activate', { id: 'demo' })).toMatchObject({ ok: false, error: { kind: 'not-found' } });
    // The hidden demo service is not reachable through any profile channel: not even a key test goes to it.
    expect(await call('profiles:test-key', { id: 'demo' })).toMatchObject({ ok: false, error: { kind: 'not-found' } });
    expect(await call('profiles:confirm-origin', { id: 'demo' })).toMatchObject({ ok: false, error: { kind: 'not-found' } });
    // The key of a locked profile is still the user's to set.
    expect(await call('profiles:set-key', { id: listing.profiles[1].id, key: OTHER_KEY })).toMatchObject({ ok: true, data: { keySet: true } });
  });

  it('fixes the download folder and forbids the online basemap', async () => {
    expect((await call('settings:get')).data).toMatchObject({ downloadDir: fixedDir(), osmLayer: false });
    expect(await call('settings:set', { downloadDir: path.join(dir, 'elsewhere') })).toMatchObject({ ok: false, error: { fields: { downloadDir: [expect.any(String)] } } });
    expect(await call('settings:set', { osmLayer: true })).toMatchObject({ ok: false, error: { fields: { osmLayer: [expect.any(String)] } } });
    expect(await call('settings:set', { theme: 'dark' })).toMatchObject({ ok: true, data: { theme: 'dark', downloadDir: fixedDir() } });
    const enqueue = await call('downloads:enqueue', { kind: 'tile', request: {}, targetDir: path.join(dir, 'elsewhere') });
    expect(enqueue).toMatchObject({ ok: false, error: { fields: { targetDir: [expect.any(String)] } } });
  });

  it('diagnostics: version, OS, contract, origins and the log tail, with every key provably absent', async () => {
    // A key that reached a log line anyway (a backend echoing it) must still not reach the report.
    log.warn(`backend said: invalid key ${KEY}`);
    await call('app:report-error', { source: 'vue', message: `render failed for ${OTHER_KEY}`, stack: 'at Panel.vue:12' });
    // Profile names only when the analyst ticks them in.
    const text: string = (await call('diagnostics:get', { includeProfileNames: true })).data.text;
    const anonymous: string = (await call('diagnostics:get')).data.text;
    expect(anonymous).toContain('- profile 1: https://imagery.corp.example [active], key set');
    expect(anonymous).not.toMatch(/Production|Staging/);
    expect(text).toContain('Swath 2.0.0, IPC contract 1.0.0');
    expect(text).toMatch(/linux \w+, OS release/);
    expect(text).toContain('- Production: https://imagery.corp.example [active], key set');
    expect(text).not.toContain('/eu');
    expect(text).toContain('- Staging: https://staging.corp.example, key set');
    expect(text).not.toContain('Demo service');
    expect(text).toContain('## Download queue');
    expect(text).toMatch(/profiles\.json {2}\d+ B/);
    expect(text).toContain(`backend said: invalid key ${redactionMark(KEY)}`);
    expect(text).toContain(`renderer error (vue): render failed for ${redactionMark(OTHER_KEY)}`);
    expect(text).toContain('applied (');
    for (const secret of [KEY, OTHER_KEY, DEMO_ACCOUNT_KEY]) expect(text).not.toContain(secret);
    const logText = readFileSync(log.file, 'utf8');
    for (const secret of [KEY, OTHER_KEY]) expect(logText).not.toContain(secret);

    expect(await call('diagnostics:save')).toMatchObject({ ok: true, data: { saved: true, path: expect.stringMatching(/swath-diagnostics-.*\.txt$/) } });
    expect(saved!.text).toContain('## Profiles');
    expect(saved!.text).not.toContain(KEY);
  });

  it('about: version, contract version and licences; updates are off without an updater', async () => {
    const about = (await call('app:about')).data;
    expect(about).toMatchObject({ version: '2.0.0', contractVersion: '1.0.0' });
    expect(about.licenses.length > 0 || about.licensesNote !== null).toBe(true);
    expect((await call('updates:status')).data).toMatchObject({ state: 'off', currentVersion: '2.0.0' });
    expect(await call('updates:check')).toMatchObject({ ok: false, error: { kind: 'validation' } });
  });
});
