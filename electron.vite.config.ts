import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';
import type { Plugin } from 'vite';
import { basemapPlugin } from './scripts/basemap';
import { contextPlugin } from './scripts/context';
import { collectLicenses } from './scripts/licenses';
import { buildUpdateFeed } from './main/policy/schema';

/** Emits out/main/licenses.json: the licences of the production dependencies, for the About dialog. */
function licensesPlugin(): Plugin {
  return {
    name: 'swath-licenses',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'licenses.json', source: JSON.stringify(collectLicenses(process.cwd())) });
    },
  };
}

export default defineConfig({
  main: {
    // Dependencies stay external (electron-vite 5 default): they ship in node_modules.
    // Besides the app, the entries main starts off its own thread (see main/shared/entry-point.ts):
    // the demo service's utility process and its render threads, the overview worker, the analysis workers, the library's query thread, the database's checkpoint worker, the fields workers and the GeoTIFF writer's DEFLATE threads
    // (all found by main/shared/entry-point.ts).
    build: {
      rollupOptions: {
        input: {
          index: resolve('main/index.ts'),
          'simulator-child': resolve('simulator/child.ts'),
          'simulator-render-worker': resolve('simulator/raster/render-worker.ts'),
          'overview-worker': resolve('main/library/overview-worker.ts'),
          'analysis-worker': resolve('main/analysis/analysis-worker.ts'),
          'fields-stats-worker': resolve('main/fields/stats/stats-worker.ts'),
          'library-query-worker': resolve('main/library/query-worker.ts'),
          'wal-checkpoint-worker': resolve('main/shared/wal-checkpoint-worker.ts'),
          'fields-import-worker': resolve('main/fields/import/import-worker.ts'),
          'geotiff-deflate-worker': resolve('main/geotiff/deflate-worker.ts'),
        },
      },
    },
    plugins: [licensesPlugin()],
    // Build-time inputs of the updater (main/updates/config.ts); empty when unset: updates off, no signature pinning.
    define: {
      // https only (http on loopback, for tests): an http SWATH_UPDATE_URL fails the build.
      'process.env.SWATH_BUILD_UPDATE_URL': JSON.stringify(buildUpdateFeed(process.env.SWATH_UPDATE_URL)),
      'process.env.SWATH_BUILD_PUBLISHER_NAME': JSON.stringify(process.env.SWATH_WIN_PUBLISHER_NAME ?? ''),
    },
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
    plugins: [vue(), basemapPlugin(), contextPlugin()],
    build: {
      // electron-vite leaves bundles unminified; the renderer's are parsed before the map is interactive.
      minify: true,
      // One stylesheet for the whole renderer (71 KB), linked from index.html: a panel opened for the
      // first time inserted its own and its chunks' stylesheets, each a style recalculation of the page
      // in the click's task (the Library's first rows 8–13% later from the page's load, A/B).
      cssCodeSplit: false,
      // A rail panel the analyst opens loads its chunks together (<link rel=modulepreload> for each of
      // its chunk's imports, not one level after the other). No such links for the other lazy chunks,
      // the Imagery panel (open at start) among them: at start each link cost ~3 ms of one long task
      // (a search of every link in the page, then an insert), while the map draws its first frames.
      modulePreload: { resolveDependencies: (file, deps) => (/(^|\/)(?!Imagery)[A-Z]\w*Panel-[\w-]+\.js$/.test(file) ? deps : []) },
      rollupOptions: { input: { index: resolve('renderer/index.html') } },
    },
  },
});
