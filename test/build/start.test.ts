import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm start` as a new user runs it, on a fresh copy of the repository (the files git tracks, or
 * would track), whose node_modules has the electron package as `npm ci` leaves it: no binary, no
 * path.txt. Every other package is linked to this checkout's node_modules.
 * - With nothing to get Electron from (a mirror on a closed loopback port, an empty cache), it stops
 *   before building, with the message that names the three ways on.
 * - With ELECTRON_OVERRIDE_DIST_PATH at a stand-in `electron` that records how it was launched, it
 *   builds and launches the built main entry.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
let work: string;
let clone: string;

function freshCopy(into: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0').filter((f) => f && existsSync(join(root, f)));
  for (const f of files) cpSync(join(root, f), join(into, f), { recursive: false });
  const modules = join(into, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === 'electron') continue;
    symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
  // The electron package as installed, without what its first use downloads.
  cpSync(join(root, 'node_modules/electron'), join(modules, 'electron'), {
    recursive: true,
    filter: (src) => !/[/\\]electron[/\\](dist|path\.txt)$/.test(src),
  });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const running = new Set<ReturnType<typeof spawn>>();

function npmStart(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // The child gets a plain environment: nothing of vitest's, nothing of this machine's Electron setup.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VITEST|ELECTRON_|electron_|npm_config_electron|SWATH_E2E)/i.test(k))) as Record<string, string>;
  // Its own process group, so that a test that ends first can stop npm and the build under it.
  const child = spawn('npm', ['start'], { cwd: clone, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.add(child);
  child.on('close', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'swath-start-'));
  clone = join(work, 'swath');
  mkdirSync(clone);
  freshCopy(clone);
});

afterAll(() => {
  for (const child of running) if (child.pid) process.kill(-child.pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('npm start on a fresh clone', () => {
  it('without Electron and no way to download it, stops before building and says the three ways on', async () => {
    expect(existsSync(join(clone, 'node_modules/electron/path.txt'))).toBe(false);
    const port = await closedPort();
    const r = await npmStart({ ELECTRON_MIRROR: `http://127.0.0.1:${port}/`, electron_config_cache: join(work, 'empty-cache') });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("Swath cannot start: Electron's binary is not installed and could not be downloaded");
    expect(r.stderr).toMatch(/\(TypeError: fetch failed\)|ECONNREFUSED/);
    for (const way of ['run `npm start` again', 'ELECTRON_MIRROR=', 'ELECTRON_OVERRIDE_DIST_PATH=', 'npm run dev:browser']) expect(r.stderr).toContain(way);
    // It stopped before the build: nothing was built.
    expect(existsSync(join(clone, 'out'))).toBe(false);
  });

  // This test's work is a whole electron-vite build of the copy (main, preload and the minified
  // renderer): about 20–30 s on a quiet 2-core machine, 60 s and more when the other core is busy
  // too. The limit is the size of that work, not a wait for a state.
  it('with ELECTRON_OVERRIDE_DIST_PATH, builds the app and launches Electron on the built main entry', { timeout: 300_000 }, async () => {
    const dist = join(work, 'electron-dist');
    const record = join(work, 'launched.json');
    mkdirSync(dist);
    // A stand-in Electron: records its working folder, arguments and the main entry it was asked to run.
    writeFileSync(join(dist, 'electron'), `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
const app = path.resolve(process.argv[2]);
const main = path.join(app, JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8')).main);
fs.writeFileSync(${JSON.stringify(record)}, JSON.stringify({ cwd: process.cwd(), args: process.argv.slice(2), main, mainExists: fs.existsSync(main), mainBytes: fs.existsSync(main) ? fs.statSync(main).size : 0 }));
`, { mode: 0o755 });
    const r = await npmStart({ ELECTRON_OVERRIDE_DIST_PATH: dist });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('starting electron app');
    const launched = JSON.parse(readFileSync(record, 'utf8')) as { cwd: string; args: string[]; main: string; mainExists: boolean; mainBytes: number };
    expect(launched.cwd).toBe(clone);
    expect(launched.args[0]).toBe('.');
    expect(launched.main).toBe(join(clone, 'out/main/index.js'));
    expect(launched.mainExists).toBe(true);
    expect(launched.mainBytes).toBeGreaterThan(100_000);
    for (const file of ['out/preload/index.cjs', 'out/renderer/index.html']) expect(existsSync(join(clone, file)), file).toBe(true);
  });
});
