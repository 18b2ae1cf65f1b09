import { existsSync } from 'node:fs';
import path from 'node:path';
import { build } from 'vite';
import { basemapPlugin } from '../../../scripts/basemap';

/** Builds the minimal OpenLayers page (minified, like the app) into .tmp/minimal-ol/<pid> and returns that folder. */
export async function buildMinimalOl(): Promise<string> {
  const root = import.meta.dirname;
  const outDir = path.resolve(root, '../../../.tmp/minimal-ol', String(process.pid));
  await build({ root, base: './', logLevel: 'error', plugins: [basemapPlugin()], build: { outDir, emptyOutDir: true, minify: true, chunkSizeWarningLimit: 4096 } });
  if (!existsSync(path.join(outDir, 'index.html'))) throw new Error('the minimal OpenLayers page did not build');
  return outDir;
}
