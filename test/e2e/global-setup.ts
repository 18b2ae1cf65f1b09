import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';

/** Builds the app once per test run into .tmp/e2e-build, for tests that serve the real renderer. */
export default function setup(): () => void {
  const root = path.resolve(import.meta.dirname, '../..');
  // Per run, so two test runs at once never delete each other's build.
  const outDir = path.join(root, '.tmp', `e2e-build-${process.pid}`);
  const build = spawnSync(path.join(root, 'node_modules/.bin/electron-vite'), ['build', '--outDir', outDir, '--logLevel', 'error'], {
    cwd: root, encoding: 'utf8',
  });
  if (build.status !== 0 || !existsSync(path.join(outDir, 'renderer', 'index.html'))) {
    throw new Error(`electron-vite build for the e2e tests failed:\n${build.stdout}\n${build.stderr}`);
  }
  process.env.SWATH_E2E_BUILD = outDir;
  return () => rmSync(outDir, { recursive: true, force: true });
}
