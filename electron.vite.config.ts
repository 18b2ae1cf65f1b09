import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';

export default defineConfig({
  main: {
    // Dependencies stay external (electron-vite 5 default): they ship in node_modules.
    build: { rollupOptions: { input: { index: resolve('main/index.ts') } } },
  },
  preload: {
    build: {
      // A sandboxed preload can require only `electron` and a few built-ins, so the
      // contract's dependencies (zod) must be bundled in.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('preload/index.ts') },
        // Sandboxed preloads must be CommonJS.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'renderer',
    plugins: [vue()],
    build: { rollupOptions: { input: { index: resolve('renderer/index.html') } } },
  },
});
