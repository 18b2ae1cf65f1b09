import { existsSync } from 'node:fs';
import path from 'node:path';
import vue from '@vitejs/plugin-vue';
import { build } from 'vite';

/** Builds the preview harness page (once per process) into .tmp/preview-harness and returns that folder. */
let built: Promise<string> | null = null;
export function buildPreviewHarness(): Promise<string> {
  built ??= (async () => {
    const root = import.meta.dirname;
    const outDir = path.resolve(root, '../../../.tmp/preview-harness', String(process.pid));
    await build({ root, base: './', logLevel: 'error', plugins: [vue()], build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 4096 } });
    if (!existsSync(path.join(outDir, 'index.html'))) throw new Error('the preview harness did not build');
    return outDir;
  })();
  return built;
}
