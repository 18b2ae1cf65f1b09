import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';
import { basemapPlugin } from './scripts/basemap';
import { contextPlugin } from './scripts/context';

// Every test that can run without the Electron binary, in three parts (vitest projects):
// - unit: needs no build and no browser (`npm run test:unit`: projects unit and unit-isolated);
// - integration: builds, boots or packages the app, and `npm start` itself (project integration), or starts real
//   processes and daemons (project integration-processes);
// - e2e: the real renderer in Chromium through the browser host.
// integration and e2e share one electron-vite build (test/support/app-build.ts), made once per run
// and only when one of their files is queued. `npm test` runs all three.
// Tests that need a DOM opt in with `// @vitest-environment jsdom`.
const BUILT = ['test/build/main-bundle.test.ts', 'test/build/package-contents.test.ts', 'test/build/start.test.ts'];
const ROOT = fileURLToPath(new URL('.', import.meta.url));
const TESTS = readdirSync(path.join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .map((f) => `test/${f.split(path.sep).join('/')}`)
  .filter((f) => f.endsWith('.ts'));
const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');

/**
 * Whether a test module starts other programs: it, or a test module it imports, uses node:child_process
 * (GDAL and Python checking files as references, a throwaway PostgreSQL cluster, Node children). Such
 * tests are kept out of the fast loop, in integration-processes; every other test that needs no build
 * and no browser is a unit test.
 */
function startsPrograms(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = read(file);
  if (/['"]node:child_process['"]/.test(text)) return true;
  for (const m of text.matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const base = path.posix.join(path.posix.dirname(file), m[1]!).replace(/\.js$/, '');
    const target = [base, `${base}.ts`, `${base}/index.ts`].find((c) => TESTS.includes(c));
    if (target && startsPrograms(target, seen)) return true;
  }
  return false;
}
// Kept out of the fast loop as well: the real keychain (D-Bus and GNOME Keyring, which .ci/run starts).
const DAEMONS = ['test/main/keychain/keytar.test.ts'];
const PROCESSES = [
  ...DAEMONS,
  ...TESTS.filter((f) => f.endsWith('.test.ts') && !f.startsWith('test/e2e/') && !BUILT.includes(f) && !DAEMONS.includes(f) && startsPrograms(f)),
];
const NOT_UNIT = ['test/e2e/**', ...BUILT, ...PROCESSES];
// The unit files that mock a module: they run isolated (see the unit-isolated project).
const MOCKING = TESTS.filter((f) => f.endsWith('.test.ts') && !f.startsWith('test/e2e/') && !BUILT.includes(f) && !PROCESSES.includes(f) && /\bvi\.(mock|doMock)\(/.test(read(f)));

export default defineConfig({
  plugins: [vue(), basemapPlugin(), contextPlugin()],
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/support/durations-reporter.ts'],
    projects: [
      {
        extends: true,
        // Two workers: vitest's default is one fewer than the cores, which is one on a 2-core machine.
        // isolate: false runs a worker's files one after another in one module graph, so the app's modules (zod schemas,
        // geotiff.js, Vue, OpenLayers) are imported once per worker instead of once per file. A test file therefore
        // leaves no global state behind: it restores timers, environment variables and stubs, and ends no lazy
        // import still loading. Files that mock a module (vi.mock) need a module graph of their own: unit-isolated.
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...NOT_UNIT, ...MOCKING], maxWorkers: 2, isolate: false, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // The unit files that replace a module with vi.mock: each in a fresh module graph, so that no other file's
        // module holds on to its mock, and its mock sees none of theirs. `npm run test:unit` runs both (--project 'unit*').
        test: { name: 'unit-isolated', include: MOCKING, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // The integration tests that need no build (PROCESSES), beside the unit part: `npm run test:integration` runs them
        // with the built ones, and the durations table counts them in the integration part.
        test: { name: 'integration-processes', include: PROCESSES, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // After the unit part, one file at a time: each of these runs a browser, a build or a packager.
        test: { name: 'integration', include: BUILT, globalSetup: ['test/support/app-build.ts'], maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/support/app-build.ts'], maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
