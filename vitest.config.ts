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
// Slow by nature, so kept out of the fast loop: each test starts Node children under tsx (the embedded service's child
// process, a download killed mid-transfer and resumed), D-Bus and GNOME Keyring daemons (the real keychain) or a
// throwaway PostgreSQL cluster (the team catalog: test/support/postgres.ts).
const PROCESSES = [
  'test/main/hosts/simulator-process.test.ts', 'test/main/downloads/crash-recovery.test.ts', 'test/main/keychain/keytar.test.ts',
  'test/main/team/catalog.test.ts', 'test/main/team/watches-year.test.ts', 'test/main/team/watch-read-url.test.ts', 'test/main/team/catalog-outage.test.ts', 'test/build/team-setup-check.test.ts',
];
const NOT_UNIT = ['test/e2e/**', ...BUILT, ...PROCESSES];
// The unit files that mock a module: they run isolated (see the unit-isolated project).
const ROOT = fileURLToPath(new URL('.', import.meta.url));
const MOCKING = readdirSync(path.join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .map((f) => `test/${f.split(path.sep).join('/')}`)
  .filter((f) => f.endsWith('.test.ts') && !f.startsWith('test/e2e/') && !BUILT.includes(f) && !PROCESSES.includes(f) && /\bvi\.(mock|doMock)\(/.test(readFileSync(path.join(ROOT, f), 'utf8')));

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
