import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodeLog from 'electron-log/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homeAsTilde } from '../../../main/diagnostics/report';
import { LogRedactor, configureLog } from '../../../main/logging';
import { SecretRegistry } from '../../../main/platform/secrets';
import { startTestApp, type TestApp } from './helpers.js';

// Issue 24 item 6: the diagnostics report carries no personal data unless the analyst adds it.

describe('the diagnostics report', () => {
  let t: TestApp;
  let logDir: string;
  const home = os.homedir();
  beforeAll(async () => {
    // The log the report's tail comes from, wired as main/index.ts wires it.
    logDir = mkdtempSync(path.join(os.tmpdir(), 'swath-diagnostics-log-'));
    const secrets = new SecretRegistry();
    const log = configureLog(nodeLog.create({ logId: 'diagnostics-privacy-test' }), { dir: logDir, redactor: new LogRedactor(secrets) });
    t = await startTestApp({ log: (line) => log.info(line), secrets, distribution: { log } });
    await t.call('profiles:create', { name: 'ACME Defence – Project Nightjar', baseUrl: 'https://imagery.acme.example' });
    // A log line and a renderer report that carry full paths under the home folder.
    await t.call('app:report-error', { source: 'window', message: `could not open ${path.join(home, 'Documents', 'client-x', 'scene.tif')}` });
  });
  afterAll(async () => {
    await t.close();
    rmSync(logDir, { recursive: true, force: true });
  });

  it('writes the home folder as ~ and leaves profile names out by default', async () => {
    const text: string = (await t.call('diagnostics:get')).data.text;
    expect(text).toContain(`could not open ${['~', 'Documents', 'client-x', 'scene.tif'].join(path.sep)}`);
    expect(text).not.toContain(home + path.sep);
    expect(text).not.toContain('Nightjar');
    expect(text).toContain('- profile 1: https://imagery.acme.example');
  });

  it('names the profiles only when the analyst ticks them in', async () => {
    const text: string = (await t.call('diagnostics:get', { includeProfileNames: true })).data.text;
    expect(text).toContain('- ACME Defence – Project Nightjar: https://imagery.acme.example');
    expect(text).not.toContain(home + path.sep);
  });

  it('refuses an unknown option, naming it', async () => {
    const res = await t.call('diagnostics:get', { includeKeys: true });
    expect(res).toMatchObject({ ok: false, error: { kind: 'validation', fields: { includeKeys: ['Unknown field.'] } } });
  });

  it('the ~ rule: whole path prefixes only, Windows paths in either slash and any case', () => {
    expect(homeAsTilde('/home/ann/x and /home/anna/y and /home/ann', '/home/ann')).toBe('~/x and /home/anna/y and ~');
    expect(homeAsTilde('C:\\Users\\Ann\\AppData and c:/users/ann/Desktop', 'C:\\Users\\Ann')).toBe('~\\AppData and ~/Desktop');
    expect(homeAsTilde('/etc/swath', '/')).toBe('/etc/swath');
  });
});
