import { defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';
import { basemapPlugin } from './scripts/basemap';

// Every test that can run without the Electron binary. Tests that need a DOM
// opt in with `// @vitest-environment jsdom`.
export default defineConfig({
  plugins: [vue(), basemapPlugin()],
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
