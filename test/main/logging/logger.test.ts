import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodeLog from 'electron-log/node';
import { afterEach, describe, expect, it } from 'vitest';
import { LogRedactor, catchProcessErrors, configureLog } from '../../../main/logging';
import { SecretRegistry } from '../../../main/platform/secrets';
import { EventEmitter } from 'node:events';
import { redactionMark } from '../../../preload/contract/redaction';

const KEY = 'sk-live-LOGGED-KEY-7d1e2f';
// Known keys become the app's redaction mark (last four only); keys found by their shape become [redacted].
const MARK = redactionMark(KEY);

describe('the main log file', () => {
  const dirs: string[] = [];
  const fresh = (id: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-log-'));
    dirs.push(dir);
    const secrets = new SecretRegistry();
    return { dir, secrets, log: configureLog(nodeLog.create({ logId: `${id}-${dirs.length}` }), { dir, redactor: new LogRedactor(secrets), maxBytes: 2_000, archives: 2 }) };
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('writes every line redacted: known keys, and keys in headers, JSON fields and query strings', () => {
    const { secrets, log } = fresh('redact');
    secrets.add(KEY);
    log.info(`profile key is ${KEY} (again: ${KEY})`);
    log.warn('GET /api/account/info x-api-key: sk-unknown-123456 failed');
    log.error('body {"ApiKey":"sk-json-999999","name":"ok"} and https://h/x?key=sk-query-42&z=1', new Error(`boom ${KEY}`));
    const text = readFileSync(log.file, 'utf8');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('sk-unknown-123456');
    expect(text).not.toContain('sk-json-999999');
    expect(text).not.toContain('sk-query-42');
    expect(text).toContain(`profile key is ${MARK} (again: ${MARK})`);
    expect(text).toContain('x-api-key: [redacted]');
    expect(text).toContain('"name":"ok"');
    expect(text).toMatch(/\[error\] .*boom /);
    expect(text).toContain(`boom ${MARK}`);
    expect(log.tail(2)).toHaveLength(2);
  });

  it('rotates by size and keeps a bounded number of archives; tail reads across them', () => {
    const { dir, log } = fresh('rotate');
    for (let i = 0; i < 200; i++) log.info(`line ${String(i).padStart(4, '0')} ${'x'.repeat(60)}`);
    const files = readdirSync(dir).sort();
    expect(files).toEqual(['main.1.log', 'main.2.log', 'main.log']);
    for (const f of files) expect(readFileSync(path.join(dir, f)).length).toBeLessThan(2_000 + 200);
    const tail = log.tail(40);
    expect(tail).toHaveLength(40);
    expect(tail.at(-1)).toContain('line 0199');
    expect(tail[0]).toContain('line 0160');
  });

  it('logs uncaught errors of the process', () => {
    const { secrets, log } = fresh('uncaught');
    secrets.add(KEY);
    const fakeProcess = new EventEmitter();
    catchProcessErrors(log, fakeProcess as unknown as NodeJS.Process);
    fakeProcess.emit('uncaughtException', new Error(`exploded with ${KEY}`));
    fakeProcess.emit('unhandledRejection', 'rejected for no reason');
    const text = readFileSync(log.file, 'utf8');
    expect(text).toMatch(/Uncaught exception in main.*exploded with /s);
    expect(text).toContain(`exploded with ${MARK}`);
    expect(text).toContain('Unhandled promise rejection in main rejected for no reason');
  });
});
