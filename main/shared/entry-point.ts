import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Modules of main that run in their own thread or process (the demo service's child process, the
 * overview worker) have two forms: from source (`.ts`, run under tsx: tests, `npm run dev:browser`)
 * and bundled by electron-vite (an extra main entry, `out/main/<name>.js`, see electron.vite.config.ts).
 */
export interface EntryPoint {
  /** Absolute path of the module to run. */
  file: string;
  /** True for the `.ts` source, which needs tsx's loader. */
  fromSource: boolean;
}

/**
 * Where the entry `bundledName` (`out/main/<bundledName>.js`) is, seen from the module at
 * `callerUrl` (its import.meta.url): from source, `sourcePath` relative to the caller; bundled, the
 * entry next to the caller's bundle file (or one folder up, when the caller landed in a chunk).
 */
export function entryPoint(callerUrl: string, sourcePath: string, bundledName: string): EntryPoint {
  const caller = fileURLToPath(callerUrl);
  const dir = path.dirname(caller);
  if (caller.endsWith('.ts')) return { file: path.resolve(dir, sourcePath), fromSource: true };
  const candidates = [path.join(dir, `${bundledName}.js`), path.join(dir, '..', `${bundledName}.js`)];
  return { file: candidates.find((f) => existsSync(f)) ?? candidates[0]!, fromSource: false };
}

function tsxFile(rel: string): string {
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  return pathToFileURL(path.join(path.dirname(pkg), rel)).href;
}

/** A Node child process running `entry`, with an IPC channel (structured clone). */
export function forkEntry(entry: EntryPoint): ChildProcess {
  return fork(entry.file, [], {
    execArgv: entry.fromSource ? ['--import', tsxFile('dist/loader.mjs')] : [],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** A worker thread running `entry` (from source through tsx's API: workers do not take `--import` loaders). */
export function startWorkerEntry(entry: EntryPoint, options: WorkerOptions = {}): Worker {
  if (!entry.fromSource) return new Worker(entry.file, options);
  const target = JSON.stringify(pathToFileURL(entry.file).href);
  const code = `import(${JSON.stringify(tsxFile('dist/esm/api/index.mjs'))}).then((tsx) => tsx.tsImport(${target}, ${target}))`;
  return new Worker(code, { ...options, eval: true });
}
