import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildUpdateFeed, loadPolicy, policyPath, userDataOverride } from '../../../main/policy';
import { resolveUpdateConfig } from '../../../main/updates';
import { bootMain, invokeMain, mainReady, quitMains } from '../hosts/boot-main';
import { removeTempDirs } from '../../support/temp-dirs';
import { startTestApp } from './helpers.js';

// The update feed is https only, and a user cannot replace the machine policy.

vi.mock('electron', async () => (await import('../hosts/fake-electron')).fakeElectron);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-machine-policy-'));
});
afterAll(async () => {
  await quitMains();
  rmSync(dir, { recursive: true, force: true });
  removeTempDirs();
});

const writePolicy = (name: string, policy: unknown): string => {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(policy));
  return file;
};

describe('a user pointing SWATH_POLICY_FILE / SWATH_USER_DATA_DIR at their own files', () => {
  const env = { SWATH_POLICY_FILE: '/home/me/empty-policy.json', SWATH_USER_DATA_DIR: '/home/me/swath-b', ProgramData: 'C:\\Users\\me\\pd' };

  it('changes nothing in an installed build: only the per-OS policy path counts', () => {
    const packaged = { packaged: true };
    expect(policyPath('linux', env, packaged)).toBe('/etc/swath/policy.json');
    expect(policyPath('darwin', env, packaged)).toBe('/Library/Application Support/Swath/policy.json');
    // Not even %ProgramData%, which the user's own environment can set.
    expect(policyPath('win32', env, packaged)).toBe('C:\\ProgramData\\Swath\\policy.json');
    expect(userDataOverride(env, packaged)).toBeNull();
  });

  it('still works in development and tests', () => {
    const dev = { packaged: false };
    expect(policyPath('linux', env, dev)).toBe('/home/me/empty-policy.json');
    expect(policyPath('win32', { ProgramData: 'D:\\PD' }, dev)).toBe('D:\\PD\\Swath\\policy.json');
    expect(userDataOverride(env, dev)).toBe('/home/me/swath-b');
  });

  describe('main/index.ts', () => {
    let userPolicy: string;
    beforeEach(() => {
      vi.resetModules();
      userPolicy = writePolicy('user-empty.json', {});
      process.env.SWATH_POLICY_FILE = userPolicy;
      process.env.SWATH_USER_DATA_DIR = path.join(dir, 'user-data-b');
    });
    afterEach(() => {
      delete process.env.SWATH_POLICY_FILE;
      delete process.env.SWATH_USER_DATA_DIR;
    });

    it('packaged: ignores both, reads the machine policy and keeps its own userData (the reproduction)', async () => {
      const electron = await bootMain((e) => { e.app.isPackaged = true; });
      expect(electron.app.setPath).not.toHaveBeenCalledWith('userData', expect.anything());
      await mainReady(electron);
      const policy = await invokeMain(electron, 'policy:get');
      expect(policy.ok).toBe(true);
      expect(policy.data.file).toBe(policyPath(process.platform, {}, { packaged: true }));
      expect(policy.data.file).not.toBe(userPolicy);
    });

    it('development: honours both', async () => {
      const electron = await bootMain();
      expect(electron.app.setPath).toHaveBeenCalledWith('userData', path.join(dir, 'user-data-b'));
      await mainReady(electron);
      const policy = await invokeMain(electron, 'policy:get');
      expect(policy.data).toMatchObject({ file: userPolicy, status: 'applied' });
    });
  });
});

describe('an update feed over plain http', () => {
  const FEED = 'http://10.1.2.3/feed/';

  it('in the policy: a problem shown in Settings and diagnostics, updates off, the rest of the policy applies', async () => {
    const file = writePolicy('http-feed.json', { updates: { url: FEED }, monthlyBudget: { amount: 500, currency: 'EUR' }, hideDemoService: true });
    const state = await loadPolicy(file);
    expect(state.status).toBe('applied');
    expect(state.policy.monthlyBudget).toEqual({ amount: 500, currency: 'EUR' });
    expect(state.problems).toEqual([expect.stringMatching(/^updates\.url: .*plain http.*https:\/\/.*Updates are off/)]);
    // The policy's feed wins over the build's, so an https build feed does not turn updates back on.
    const config = resolveUpdateConfig({ buildUrl: 'https://updates.corp.example/swath/', policy: state, userChannel: null, packaged: true });
    expect(config).toMatchObject({ enabled: false, source: 'policy', reason: expect.stringMatching(/Updates are off: .*plain http/) });

    const t = await startTestApp({ distribution: { policy: state } });
    try {
      const view = await t.call('policy:get');
      expect(view.data).toMatchObject({ status: 'applied', problems: state.problems, monthlyBudget: { amount: 500, currency: 'EUR' } });
      const report = (await t.call('diagnostics:get')).data.text as string;
      expect(report).toMatch(/problem: updates\.url: .*plain http/);
    } finally {
      await t.close();
    }
  });

  it('from the build (SWATH_UPDATE_URL): the build fails, naming the variable', () => {
    expect(() => buildUpdateFeed(FEED)).toThrow(/^SWATH_UPDATE_URL: .*plain http/);
    expect(buildUpdateFeed(' https://updates.corp.example/swath/ ')).toBe('https://updates.corp.example/swath/');
    expect(buildUpdateFeed(undefined)).toBe('');
  });

  it('from a build made before the check: updates off at run time, saying why', () => {
    const none = { status: 'none' as const, file: '', problems: [], policy: {} };
    expect(resolveUpdateConfig({ buildUrl: FEED, policy: none, userChannel: null, packaged: true }))
      .toMatchObject({ enabled: false, source: 'build', reason: expect.stringMatching(/plain http/) });
    expect(resolveUpdateConfig({ buildUrl: 'ftp://updates.corp.example/', policy: none, userChannel: null, packaged: true }).enabled).toBe(false);
  });

  it('only https feeds are used: plain http is refused on loopback too (any local program can listen there)', async () => {
    const none = { status: 'none' as const, file: '', problems: [], policy: {} };
    for (const url of ['https://updates.corp.example/swath/', 'https://127.0.0.1:8443/feed/']) {
      expect(resolveUpdateConfig({ buildUrl: url, policy: none, userChannel: null, packaged: true }), url).toMatchObject({ enabled: true, url });
    }
    for (const url of ['http://127.0.0.1:8080/feed/', 'http://localhost:9/', 'http://[::1]:9/', 'http://127.0.0.1.evil.example/', 'http://localhost.evil.example/']) {
      expect(resolveUpdateConfig({ buildUrl: url, policy: none, userChannel: null, packaged: true }), url).toMatchObject({ enabled: false, reason: expect.stringMatching(/plain http/) });
    }
    expect(() => buildUpdateFeed('http://127.0.0.1:8080/feed/')).toThrow(/^SWATH_UPDATE_URL: .*plain http.*even on this machine/);
    const state = await loadPolicy(writePolicy('loopback-feed.json', { updates: { url: 'http://localhost:8080/' }, hideDemoService: true }));
    expect(state).toMatchObject({ status: 'applied', policy: { hideDemoService: true } });
    expect(state.problems).toEqual([expect.stringMatching(/^updates\.url: .*plain http.*Updates are off/)]);
  });
});
