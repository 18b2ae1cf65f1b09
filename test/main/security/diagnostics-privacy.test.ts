import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodeLog from 'electron-log/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASKED_PATH, maskFolder, maskPaths } from '../../../main/diagnostics/report';
import { LogRedactor, configureLog } from '../../../main/logging';
import { SecretRegistry } from '../../../main/platform/secrets';
import { startTestApp, type TestApp } from './helpers.js';

// The diagnostics report carries no personal data unless the analyst adds it.

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
    // ... and paths elsewhere: a temp folder, a mounted share, a Windows drive, a UNC share.
    await t.call('app:report-error', { source: 'window', message: 'could not read /tmp/client-y/a.tif or /mnt/share/client-z/b.tif' });
    await t.call('app:report-error', { source: 'promise', message: 'could not write D:\\Projects\\client-w\\c.tif nor \\\\filer\\imagery\\client-v\\d.tif', stack: 'at file:///opt/client-u/app.js:1:2' });
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

  it('masks every other absolute path, and the userData folder by name', async () => {
    const text: string = (await t.call('diagnostics:get')).data.text;
    for (const client of ['client-y', 'client-z', 'client-w', 'client-v', 'client-u']) expect(text).not.toContain(client);
    expect(text).toContain(`could not read ${MASKED_PATH} or ${MASKED_PATH}`);
    expect(text).toContain(`could not write ${MASKED_PATH} nor ${MASKED_PATH}`);
    expect(text).toContain(`at ${MASKED_PATH}`);
    expect(text).toContain('## userData files (<userData>)');
    expect(text).not.toContain(t.dir);
    expect(text).not.toContain(os.tmpdir() + path.sep);
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
    expect(maskFolder('/home/ann/x and /home/anna/y and /home/ann', '/home/ann', '~')).toBe('~/x and /home/anna/y and ~');
    expect(maskFolder('C:\\Users\\Ann\\AppData and c:/users/ann/Desktop', 'C:\\Users\\Ann', '~')).toBe('~\\AppData and ~/Desktop');
    expect(maskFolder('/etc/swath', '/', '~')).toBe('/etc/swath');
  });

  it('the path rule: every absolute path, not URLs, service operations or relative paths', () => {
    const home = [{ folder: '/home/ann', label: '~' }, { folder: '/home/ann/.config/Swath', label: '<userData>' }];
    const cases: [string, string][] = [
      ['/home/ann/.config/Swath/swath.db and /home/ann/x.tif and /home/anna/y', '<userData>/swath.db and ~/x.tif and <path>'],
      ['open /tmp/a.tif: ENOENT', 'open <path>: ENOENT'],
      ['(/mnt/share/p/q.tif)', '(<path>)'],
      ['copy "/mnt/share/Client X/q.tif" failed', 'copy "<path>" failed'],
      ["dir='/srv/imagery/a b'", "dir='<path>'"],
      ['C:\\Data\\p.tif, d:/imagery/q.tif; E:\\', '<path>, <path>; <path>'],
      ['\\\\filer\\imagery\\p.tif and //filer/imagery/q.tif', '<path> and <path>'],
      ['\\\\?\\C:\\very\\long.tif', '<path>'],
      ['at file:///opt/app/main.js:10:3', 'at <path>'],
      ['GET /api/account/info -> 200 in 3 ms, https://imagery.example/a/b, watches/a-1/x.tif, 1/2, N/A', 'GET /api/account/info -> 200 in 3 ms, https://imagery.example/a/b, watches/a-1/x.tif, 1/2, N/A'],
    ];
    for (const [text, masked] of cases) expect(maskPaths(text, home), text).toBe(masked);
  });
});
