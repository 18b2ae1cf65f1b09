import { defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';
import { basemapPlugin } from './scripts/basemap';
import { contextPlugin } from './scripts/context';

// Every test that can run without the Electron binary, in three parts (vitest projects):
// - unit: needs no build and no browser (`npm run test:unit`);
// - integration: builds, boots or packages the app, and `npm start` itself;
// - e2e: the real renderer in Chromium through the browser host.
// integration and e2e share one electron-vite build (test/support/app-build.ts), made once per run
// and only when one of their files is queued. `npm test` runs all three.
// Tests that need a DOM opt in with `// @vitest-environment jsdom`.
const BUILT = ['test/build/main-bundle.test.ts', 'test/build/package-contents.test.ts', 'test/build/start.test.ts'];

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
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**', ...BUILT], maxWorkers: 2, sequence: { groupOrder: 0 } },
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
