import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';
import { basemapPlugin } from './scripts/basemap';
import { contextPlugin } from './scripts/context';
import EnvironmentSequencer from './test/support/sequencer';

// Every test that can run without the Electron binary, in three parts (vitest projects):
// - unit: modules and features in process, with no build, no browser, no other program and not the whole app core
//   (`npm run test:unit`: projects unit and unit-isolated);
// - integration: builds, boots or packages the app, and `npm start` itself (project integration); or, without a
//   build, starts other programs or boots the whole app core against the simulator (project integration-nobuild);
// - e2e: the real renderer in Chromium through the browser host.
// integration and e2e share one electron-vite build (test/support/app-build.ts), made once per run
// and only when one of their files is queued. `npm test` runs all three.
// Tests that need a DOM opt in with `// @vitest-environment jsdom`.
const BUILT = ['test/build/main-bundle.test.ts', 'test/build/package-contents.test.ts', 'test/build/start.test.ts'];
const ROOT = fileURLToPath(new URL('.', import.meta.url));
const TESTS = readdirSync(path.join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .map((f) => `test/${f.split(path.sep).join('/')}`)
  .filter((f) => f.endsWith('.ts'));
// Each test module read once per config load (the part rules below follow imports through shared helpers).
const texts = new Map<string, string>();
const read = (f: string): string => {
  let text = texts.get(f);
  if (text === undefined) texts.set(f, (text = readFileSync(path.join(ROOT, f), 'utf8')));
  return text;
};

/** Whether a test module, or a test module it imports (relative imports, followed through test/), matches `re`. */
function reaches(file: string, re: RegExp, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = read(file);
  if (re.test(text)) return true;
  for (const m of text.matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const base = path.posix.join(path.posix.dirname(file), m[1]!).replace(/\.js$/, '');
    const target = [base, `${base}.ts`, `${base}/index.ts`].find((c) => TESTS.includes(c));
    if (target && reaches(target, re, seen)) return true;
  }
  return false;
}
// Integration tests that need no build, kept out of the fast unit loop (project integration-nobuild):
// - those that start other programs: node:child_process (GDAL and Python checking files as references, a throwaway
//   PostgreSQL cluster, Node children), and the real keychain (D-Bus and GNOME Keyring, which .ci/run starts);
// - those that boot the whole app core (createApp, the composition root, or main/index.ts that mounts it) against the
//   simulator.
const STARTS_PROGRAMS = /['"]node:child_process['"]/;
const BOOTS_APP_CORE = /(?:from\s+|import\()['"][^'"]*\/main\/(?:app\/app|index)(?:\.js)?['"]/;
const DAEMONS = ['test/main/profiles/keytar.test.ts'];
const NO_BUILD = [
  ...DAEMONS,
  ...TESTS.filter((f) => f.endsWith('.test.ts') && !f.startsWith('test/e2e/') && !BUILT.includes(f) && !DAEMONS.includes(f)
    && (reaches(f, STARTS_PROGRAMS) || reaches(f, BOOTS_APP_CORE))),
];
const NOT_UNIT = ['test/e2e/**', ...BUILT, ...NO_BUILD];
// The unit files that mock a module: they run isolated (see the unit-isolated project).
const MOCKING = TESTS.filter((f) => f.endsWith('.test.ts') && !f.startsWith('test/e2e/') && !BUILT.includes(f) && !NO_BUILD.includes(f) && /\bvi\.(mock|doMock)\(/.test(read(f)));

// Run with every unit test file: removes the renderer tests' stand-in for the page's bridge after each test.
const UNIT_SETUP = 'test/support/unit-setup.ts';

export default defineConfig({
  plugins: [vue(), basemapPlugin(), contextPlugin()],
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/support/durations-reporter.ts'],
    sequence: { sequencer: EnvironmentSequencer },
    projects: [
      {
        extends: true,
        // Three workers on a 2-core machine: the unit files wait on loopback HTTP and timers often enough that a third keeps
        // both cores busy (63 s → 59 s wall here); vitest's default is one fewer than the cores.
        // isolate: false runs a worker's files one after another in one module graph, so the app's modules (zod schemas,
        // geotiff.js, Vue, OpenLayers) are imported once per worker instead of once per file. A test file therefore
        // leaves no global state behind: it restores timers, environment variables and stubs, and ends no lazy
        // import still loading. Files that mock a module (vi.mock) need a module graph of their own: unit-isolated. The
        // renderer tests need no mock of the bridge: they install a stand-in for window.swath (test/renderer/fake-bridge.ts).
        // A worker keeps its graph only while the next queued file has its environment: test/support/sequencer.ts queues
        // each project's node files, then its jsdom files.
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...NOT_UNIT, ...MOCKING], setupFiles: [UNIT_SETUP], maxWorkers: 3, isolate: false, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // The unit files that replace a module with vi.mock: each in a fresh module graph, so that no other file's
        // module holds on to its mock, and its mock sees none of theirs. `npm run test:unit` runs both (--project 'unit*').
        test: { name: 'unit-isolated', include: MOCKING, setupFiles: [UNIT_SETUP], maxWorkers: 3, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // The integration tests that need no build (NO_BUILD), beside the unit part: `npm run test:integration` runs them
        // with the built ones, and the durations table counts them in the integration part. Projects of one group share
        // their worker count (vitest requires it): three, as the unit projects.
        test: { name: 'integration-nobuild', include: NO_BUILD, maxWorkers: 3, sequence: { groupOrder: 0 } },
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
