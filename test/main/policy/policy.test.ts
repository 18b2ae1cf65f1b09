import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { basemapOrigins, budgetProblem, loadPolicy, policyPath, policyView } from '../../../main/policy';
import { startTestApp } from '../watches/app-helpers';

const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** A composite of a small area on a date the demo service has imagery (it costs credit: no order covers it). */
const SMALL_COMPOSITE = {
  Wkt: 'POLYGON((12.33 51.31, 12.36 51.31, 12.36 51.33, 12.33 51.33, 12.33 51.31))', Date: '2026-08-01', Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'],
  EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16', Resolution: 80, PixelSelectionMode: 'intersect',
};
const write = (name: string, content: unknown) => {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};

describe('policy file location', () => {
  const dev = { packaged: false };
  it('is /etc/swath on Linux, %ProgramData%\\Swath on Windows, /Library/Application Support/Swath on macOS', () => {
    expect(policyPath('linux', {}, dev)).toBe('/etc/swath/policy.json');
    expect(policyPath('freebsd', {}, dev)).toBe('/etc/swath/policy.json');
    expect(policyPath('darwin', {}, dev)).toBe('/Library/Application Support/Swath/policy.json');
    expect(policyPath('win32', { ProgramData: 'D:\\ProgramData' }, dev)).toBe('D:\\ProgramData\\Swath\\policy.json');
    expect(policyPath('win32', { PROGRAMDATA: 'E:\\PD' }, dev)).toBe('E:\\PD\\Swath\\policy.json');
    expect(policyPath('win32', {}, dev)).toBe('C:\\ProgramData\\Swath\\policy.json');
  });

  it('is overridden by SWATH_POLICY_FILE on every platform (development and tests)', () => {
    for (const platform of ['linux', 'darwin', 'win32']) expect(policyPath(platform, { SWATH_POLICY_FILE: '/tmp/p.json' }, dev)).toBe('/tmp/p.json');
    expect(policyPath('linux', { SWATH_POLICY_FILE: '  ' }, dev)).toBe('/etc/swath/policy.json');
  });
});

describe('loading the policy', () => {
  it('no file: nothing applies, nothing logged as a problem', async () => {
    const state = await loadPolicy(path.join(dir, 'absent.json'));
    expect(state).toMatchObject({ status: 'none', problems: [], policy: {} });
  });

  it('a complete policy is applied and normalised', async () => {
    const file = write('full.json', {
      profiles: [{ name: ' Production ', baseUrl: 'https://imagery.corp.example/' }],
      hideDemoService: true,
      basemap: { online: 'xyz', xyzUrl: 'https://tiles.corp.example/{z}/{x}/{y}.png', attribution: '© Corp' },
      downloadDir: '/srv/imagery',
      updates: { url: 'https://updates.corp.example/swath/', channel: 'beta' },
      monthlyBudget: { amount: 500, currency: 'EUR' },
      notifications: false,
    });
    const logs: string[] = [];
    const state = await loadPolicy(file, (l) => logs.push(l));
    expect(state.status).toBe('applied');
    expect(state.policy.profiles).toEqual([{ name: 'Production', baseUrl: 'https://imagery.corp.example' }]);
    expect(basemapOrigins(state)).toEqual(['https://tiles.corp.example']);
    const view = policyView(state, ['p1']);
    expect(view).toMatchObject({
      status: 'applied', lockedProfileIds: ['p1'], hideDemoService: true, downloadDir: '/srv/imagery',
      updates: { url: 'https://updates.corp.example/swath/', channel: 'beta', enabled: null },
      monthlyBudget: { amount: 500, currency: 'EUR' }, notifications: false,
      basemap: { online: 'xyz', xyzUrl: 'https://tiles.corp.example/{z}/{x}/{y}.png', attribution: '© Corp' },
    });
    expect(logs.join('\n')).toContain('policy: applied');
  });

  it('basemap origins: OSM by default, none when forbidden', async () => {
    expect(basemapOrigins(await loadPolicy(path.join(dir, 'absent.json')))).toEqual(['https://tile.openstreetmap.org']);
    expect(basemapOrigins(await loadPolicy(write('none.json', { basemap: { online: 'none' } })))).toEqual([]);
  });

  it.each([
    ['not JSON', '{ "hideDemoService": tru', /not valid JSON/],
    ['a key in a profile', { profiles: [{ name: 'P', baseUrl: 'https://x.example', apiKey: 'sk-123' }] }, /profiles\.0: unknown key apiKey\. A policy never carries API keys/],
    ['a misspelt key', { hideDemo: true }, /\(top level\): unknown key hideDemo/],
    ['plain http to a remote host', { profiles: [{ name: 'P', baseUrl: 'http://imagery.corp.example' }] }, /profiles\.0\.baseUrl: .*https/],
    ['xyz without a URL', { basemap: { online: 'xyz' } }, /basemap\.xyzUrl: xyzUrl is required/],
    ['an http tile server', { basemap: { online: 'xyz', xyzUrl: 'http://tiles.corp/{z}/{x}/{y}.png' } }, /must use https/],
    ['a tile URL without {y}', { basemap: { online: 'xyz', xyzUrl: 'https://tiles.corp/{z}/{x}.png' } }, /must contain \{y\}/],
    ['a relative download folder', { downloadDir: 'imagery' }, /downloadDir must be an absolute path/],
    ['an unknown channel', { updates: { channel: 'nightly' } }, /updates\.channel/],
    ['a negative budget', { monthlyBudget: { amount: -1, currency: 'EUR' } }, /greater than 0/],
    ['a team catalog URL with a password', { teamCatalogUrl: 'postgres://alice:sk-123@db.corp.example/swath?sslmode=verify-full' }, /teamCatalogUrl: teamCatalogUrl must not contain a user name or password/],
    ['a team catalog without TLS', { teamCatalogUrl: 'postgres://db.corp.example/swath' }, /teamCatalogUrl: .*sslmode=verify-full/],
    ['a team catalog of another kind', { teamCatalogUrl: 'mysql://db.corp.example/swath?sslmode=verify-full' }, /must start with postgres:\/\//],
    ['a team catalog without a database', { teamCatalogUrl: 'postgres://db.corp.example?sslmode=verify-full' }, /must name the database/],
    ['a relative team share', { teamSharePath: 'share/rasters' }, /teamSharePath must be an absolute path/],
    ['an http team read URL', { teamReadUrl: 'http://files.corp.example/rasters/' }, /teamReadUrl: .*https/],
  ])('%s: reported, logged, and nothing of it applies', async (_name, content, problem) => {
    const logs: string[] = [];
    const state = await loadPolicy(write(`bad-${Math.random()}.json`, content), (l) => logs.push(l));
    expect(state.status).toBe('invalid');
    expect(state.policy).toEqual({});
    expect(state.problems.join('\n')).toMatch(problem);
    expect(logs.join('\n')).toMatch(/is invalid and was ignored/);
    // A policy never echoes a key it refused into the log.
    expect(logs.join('\n')).not.toContain('sk-123');
  });

  it('one bad key: that key is ignored and reported, the valid ones apply, the ceiling stays', async () => {
    const logs: string[] = [];
    const state = await loadPolicy(write('one-bad.json', {
      hideDemo: true, downloadDir: '/srv/imagery', basemap: { online: 'xyz' }, monthlyBudget: { amount: 500, currency: 'EUR' }, notifications: false,
    }), (l) => logs.push(l));
    expect(state.status).toBe('applied');
    expect(state.policy).toEqual({ downloadDir: '/srv/imagery', monthlyBudget: { amount: 500, currency: 'EUR' }, notifications: false });
    expect(state.problems).toEqual([
      '(top level): unknown key hideDemo. That key is ignored.',
      'basemap.xyzUrl: xyzUrl is required when online is "xyz". That key is ignored.',
    ]);
    expect(state.ceilingUnreadable).toBeUndefined();
    expect(budgetProblem(state)).toBeNull();
    expect(policyView(state, [])).toMatchObject({ status: 'applied', downloadDir: '/srv/imagery', monthlyBudget: { amount: 500, currency: 'EUR' }, basemap: null });
    expect(logs.join('\n')).toMatch(/policy: applied .*unknown key hideDemo/);
  });

  it.each([
    ['a negative ceiling', { monthlyBudget: { amount: -1, currency: 'EUR' }, downloadDir: '/srv/imagery' }, /monthlyBudget\.amount: monthlyBudget\.amount must be greater than 0/],
    ['a ceiling as text', { monthlyBudget: '500 EUR', downloadDir: '/srv/imagery' }, /monthlyBudget: /],
    ['a misspelt ceiling', { monthlybudget: { amount: 500, currency: 'EUR' }, downloadDir: '/srv/imagery' }, /monthlybudget is not a policy key, and may be meant as monthlyBudget/],
    ['a file that is not JSON', '{ "monthlyBudget": { "amount": 500, ', /not valid JSON/],
    ['a file that is not an object', '[{ "monthlyBudget": { "amount": 500, "currency": "EUR" } }]', /a policy is a JSON object/],
  ])('%s: the ceiling cannot be read, so every spend needs consent (refused without main\'s dialog)', async (_name, content, why) => {
    const state = await loadPolicy(write(`ceiling-${Math.random()}.json`, content));
    if (typeof content !== 'string') expect(state).toMatchObject({ status: 'applied', policy: { downloadDir: '/srv/imagery' } });
    expect(state.policy.monthlyBudget).toBeUndefined();
    expect(state.ceilingUnreadable).toMatch(why);
    const problem = budgetProblem(state)!;
    expect(problem).toMatch(/^monthlyBudget: the policy's ceiling cannot be read \(.+\)\. Until the policy file is fixed, every spend needs your confirmation\.$/);
    expect(policyView(state, []).problems).toContain(problem);

    // The spend guard of an app under this policy: even a small known cost within no budget asks, and the
    // browser host (no dialog) refuses it, saying why.
    const t = await startTestApp({ distribution: { policy: state } });
    try {
      const verdict = await t.call('spend:get', { costEur: 0.5 });
      expect(verdict).toMatchObject({ decision: 'confirm', budgetEur: null, ceilingEur: null });
      expect(verdict.reason).toContain("the policy's ceiling cannot be read");
      const plan = await t.call('downloads:plan', { request: SMALL_COMPOSITE });
      expect(plan.verdict.decision).toBe('confirm');
      await expect(t.call('downloads:enqueue', { kind: 'composite', request: SMALL_COMPOSITE })).rejects.toMatchObject({ kind: 'validation', message: expect.stringContaining("the policy's ceiling cannot be read") });
      expect((await t.call('downloads:list')).jobs).toEqual([]);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('applies the team library keys and shows them to the analyst', async () => {
    const state = await loadPolicy(write('team.json', {
      teamCatalogUrl: 'postgres://db.corp.example:5432/swath?sslmode=verify-full',
      teamCatalogCa: '/etc/swath/corp-ca.pem',
      teamSharePath: '\\\\filer\\imagery',
      teamReadUrl: 'https://files.corp.example/imagery/',
    }));
    expect(state.problems).toEqual([]);
    expect(policyView(state, []).team).toEqual({
      catalogUrl: 'postgres://db.corp.example:5432/swath?sslmode=verify-full', sharePath: '\\\\filer\\imagery', readUrl: 'https://files.corp.example/imagery/',
    });
    // A catalog on this machine may go without TLS (a local test server).
    expect((await loadPolicy(write('local.json', { teamCatalogUrl: 'postgresql://127.0.0.1:5433/swath' }))).status).toBe('applied');
    expect(policyView(await loadPolicy(path.join(dir, 'absent.json')), []).team).toBeNull();
  });

  it('accepts a Windows download folder and a UTF-8 BOM', async () => {
    const state = await loadPolicy(write('win.json', '\uFEFF{"downloadDir":"D:\\\\Imagery"}'));
    expect(state).toMatchObject({ status: 'applied', policy: { downloadDir: 'D:\\Imagery' } });
  });
});
