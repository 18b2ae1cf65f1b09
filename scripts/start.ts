import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm start` (and `npm run dev` with `--dev`): makes sure Electron's binary is there, then has
 * electron-vite build and launch the app.
 *
 * electron-vite finds Electron by reading `node_modules/electron/path.txt` itself and throws
 * "Electron uninstall" when it is missing; since Electron 45 the binary is no longer downloaded at
 * install but when the `electron` module is first required. So the binary is resolved here, by
 * requiring `electron` in a child process (Electron's own installer: `ELECTRON_MIRROR`,
 * `electron_config_cache` and `ELECTRON_OVERRIDE_DIST_PATH` work as Electron documents them), and
 * handed to electron-vite as `ELECTRON_EXEC_PATH`. This runs before the build, so a machine that
 * cannot get Electron is told so in a second or two, not after a 20 s build.
 */

export type ElectronLookup = { ok: true; executable: string } | { ok: false; reason: string };

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The installer's own error ("TypeError: fetch failed", "HTTPError: Response code 404 …"), not the
 * generic "Electron failed to install correctly" that `electron`'s index.js throws after it.
 */
function installerError(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('at ') && !l.startsWith('Node.js v'));
  const errors = lines.filter((l) => /^\w*(Error|Exception)\b|ENOTFOUND|ECONN|EAI_AGAIN|ETIMEDOUT|fetch failed/.test(l));
  const own = errors.find((l) => !/Electron failed to install correctly/.test(l)) ?? errors[0] ?? lines.at(-1) ?? 'no output';
  return own.slice(0, 300);
}

/**
 * Where Electron's executable is, downloading it through Electron's own installer when it is
 * missing. The child's stdout is the installer's progress (passed through); the path comes back on
 * fd 3, so nothing the installer prints can be mistaken for it.
 */
export function findElectron(cwd = root, env: NodeJS.ProcessEnv = process.env): ElectronLookup {
  let entry: string;
  try {
    entry = createRequire(path.join(cwd, 'package.json')).resolve('electron');
  } catch {
    return { ok: false, reason: 'the electron package is not installed (run `npm ci` first)' };
  }
  const child = spawnSync(process.execPath, ['-e', `require('fs').writeSync(3, require(${JSON.stringify(entry)}))`], {
    cwd, env, encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe', 'pipe'],
  });
  const out = (child.output[3] as string | null) ?? '';
  if (child.status === 0 && out) {
    if (!existsSync(out)) return { ok: false, reason: `Electron's executable is not at ${out}` };
    return { ok: true, executable: out };
  }
  return { ok: false, reason: installerError(child.stderr ?? '') };
}

/** What to do when Electron cannot be had: the three ways on. */
export function offlineMessage(reason: string): string {
  return [
    `Swath cannot start: Electron's binary is not installed and could not be downloaded (${reason}).`,
    '',
    'Electron 45 downloads its binary the first time it is used. Three ways on:',
    '  1. Connect to the network and run `npm start` again (the download is about 100 MB, once).',
    '  2. Use an Electron mirror or a copy you already have:',
    '       ELECTRON_MIRROR=https://your-mirror/electron/ npm start',
    '       ELECTRON_OVERRIDE_DIST_PATH=/path/to/unpacked/electron npm start',
    '     (a cached zip in electron_config_cache is used as well).',
    '  3. Run the same app in a browser instead: `npm run dev:browser`, then open the printed URL.',
  ].join('\n');
}

function main(): void {
  const dev = process.argv.includes('--dev');
  const electron = findElectron();
  if (!electron.ok) {
    console.error(offlineMessage(electron.reason));
    process.exit(1);
  }
  const bin = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'electron-vite.cmd' : 'electron-vite');
  const child = spawn(bin, [dev ? 'dev' : 'preview'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ELECTRON_EXEC_PATH: electron.executable },
    shell: process.platform === 'win32',
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
