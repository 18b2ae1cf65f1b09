import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Global setup of the integration and e2e parts: builds the app once per test run into
 * .tmp/e2e-build-<pid> and names it in SWATH_E2E_BUILD for the tests that serve the real renderer or
 * boot the built main. Both parts list this file; the second call finds the finished build (a
 * marker written last) and reuses it. The unit part never pays for a build.
 */
export default function setup(): () => void {
  const root = path.resolve(import.meta.dirname, '../..');
  // Per run, so two test runs at once never delete each other's build.
  const outDir = path.join(root, '.tmp', `e2e-build-${process.pid}`);
  const done = path.join(outDir, '.complete');
  if (!existsSync(done)) {
    const t0 = performance.now();
    const build = spawnSync(path.join(root, 'node_modules/.bin/electron-vite'), ['build', '--outDir', outDir, '--logLevel', 'error'], {
      cwd: root, encoding: 'utf8',
    });
    if (build.status !== 0 || !existsSync(path.join(outDir, 'renderer', 'index.html'))) {
      throw new Error(`electron-vite build for the integration and e2e tests failed:\n${build.stdout}\n${build.stderr}`);
    }
    writeFileSync(done, '');
    console.log(`App built for the integration and e2e tests in ${((performance.now() - t0) / 1000).toFixed(1)} s (${outDir})`);
  }
  process.env.SWATH_E2E_BUILD = outDir;
  return () => rmSync(outDir, { recursive: true, force: true });
}
