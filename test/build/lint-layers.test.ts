/**
 * The layer lint of eslint.config.js fails `npm run lint`. Which folder may import which is the one
 * table of scripts/layers.js; scripts/eslint-layers.js turns it into two rules (`layers/allowed-imports`,
 * `layers/no-cycles`); the package and global bans per process stay no-restricted-imports/-globals.
 * ESLint's own API lints small offending files with the repository's config and must report each.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM JS without declarations
import { folderCycles, importCycles, sourceFiles, treeRefusals } from '../../scripts/eslint-layers.js';
// @ts-expect-error plain ESM JS without declarations
import { LAYERS, layerOf, pathsOf, tableProblems } from '../../scripts/layers.js';

type Layer = { name: string; paths?: string[]; may: string[] };

const root = path.resolve(import.meta.dirname, '../..');
const LAYER_RULES = new Set(['layers/allowed-imports', 'layers/no-cycles', 'layers/no-folder-cycles', 'no-restricted-imports', 'no-restricted-globals']);
// The repository's config, running only the rules these tests read (the others' reports would be filtered out below).
const eslint = new ESLint({ cwd: root, ruleFilter: ({ ruleId }) => LAYER_RULES.has(ruleId) });

/** The layer messages (rule: message) ESLint reports for its results. */
function layerMessages(results: ESLint.LintResult[]): string[] {
  return results.flatMap((r) => r.messages
    .filter((m) => LAYER_RULES.has(m.ruleId ?? ''))
    .map((m) => { expect(m.severity).toBe(2); return `${m.ruleId}: ${m.message}`; }));
}

/** The layer messages for `code` placed (virtually) at `file`. */
const layerErrors = async (file: string, code: string) => layerMessages(await eslint.lintText(code, { filePath: path.join(root, file) }));
/** The table's refusals of `code` at `file`: an import the table refuses may also close a folder cycle, which is not what these tests read. */
const tableErrors = async (file: string, code: string) => (await layerErrors(file, code)).filter((m) => !m.startsWith('layers/no-folder-cycles:'));

describe('package and global bans per process', () => {
  it.each([
    ['renderer/src/platform/lib/x.ts', "import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n", /renderer may not import Node built-ins/],
    ['renderer/src/platform/stores/x.ts', "import { ipcRenderer } from 'electron';\nexport const x = ipcRenderer;\n", /may not import Node or Electron/],
    ['common/x.ts', "import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n", /common\/ may not use Node built-ins/],
    ['common/x.ts', 'export const x = (): string => document.title;\n', /no DOM or Node globals/],
    ['common/x.ts', 'export const x = (): string => process.platform;\n', /no DOM or Node globals/],
    ['preload/contract/x.ts', "import { readFile } from 'fs';\nexport const x = readFile;\n", /contract runs in every process/],
    ['main/library/x.ts', "import { ipcMain } from 'electron';\nexport const x = ipcMain;\n", /Electron is used only/],
    ['main/watches/x.ts', "import { Notification } from 'electron';\nexport const x = Notification;\n", /Electron is used only/],
  ])('%s: %s is refused', async (file, code, message) => {
    const errors = await layerErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });
});

describe('the layer table, as lint', () => {
  it.each([
    // A feature never imports a host or the composition root.
    ['main/watches/x.ts', "import { startBrowserHost } from '../hosts/browser-host';\nexport const x = startBrowserHost;\n", 'main/watches', 'main/hosts'],
    ['main/watches/x.ts', "import type { AppCore } from '../app/app';\nexport type X = AppCore;\n", 'main/watches', 'main/app'],
    ['main/spend/x.ts', "export const x = () => import('../app/embedded-service');\n", 'main/spend', 'main/app'],
    ['main/api/x.ts', "import { toIpcError } from '../ipc/errors.js';\nexport const x = toIpcError;\n", 'main/api', 'main/ipc'],
    ['main/library/x.ts', "import { writeGeoTiff } from '../../simulator/raster/index.js';\nexport const x = writeGeoTiff;\n", 'main/library', 'simulator'],
    ['main/app/x.ts', "export { startBrowserHost } from '../hosts/browser-host';\n", 'main/app', 'main/hosts'],
    ['simulator/x.ts', "import { LibraryCatalog } from '../main/library/catalog.js';\nexport const x = LibraryCatalog;\n", 'simulator', 'main/library'],
    ['common/grid/x.ts', "import { ApiError } from '../../main/api/errors.js';\nexport const x = ApiError;\n", 'common', 'main/api'],
    ['preload/contract/x.ts', "import { ApiError } from '../../main/api/errors';\nexport const x = ApiError;\n", 'preload/contract', 'main/api'],
    ['renderer/src/platform/stores/x.ts', "import { readGeoTiffHeader } from '../../../../main/geotiff/index.js';\nexport const x = readGeoTiffHeader;\n", 'renderer/src/platform/stores', 'main/geotiff'],
    // Inside the renderer: stores never import views, views never call the bridge.
    ['renderer/src/platform/stores/x.ts', "import Panel from '../../features/library/views/LibraryPanel.vue';\nexport const x = Panel;\n", 'renderer/src/platform/stores', 'renderer/src/features/*/views'],
    ['renderer/src/platform/stores/x.ts', "import Icon from '../components/Icon.vue';\nexport const x = Icon;\n", 'renderer/src/platform/stores', 'renderer/src/platform/components'],
    ['renderer/src/platform/components/X.vue', "<script setup lang=\"ts\">\nimport { getBridge } from '../bridge';\nvoid getBridge;\n</script>\n<template><p /></template>\n", 'renderer/src/platform/components', 'renderer/src/platform/bridge.ts'],
    ['renderer/src/features/library/stores/x.ts', "import { useAoiStore } from '../../../platform/stores/aoi';\nimport Panel from '../views/LibraryPanel.vue';\nexport const x = [useAoiStore, Panel];\n", 'renderer/src/features/*/stores', 'renderer/src/features/*/views'],
    ['renderer/src/platform/lib/x.ts', "import { useAoiStore } from '../stores/aoi';\nexport const x = useAoiStore;\n", 'renderer/src/platform/lib', 'renderer/src/platform/stores'],
    // Inside a feature folder the same rules hold, and a feature never uses another feature's views.
    ['renderer/src/features/tasking/stores/x.ts', "import Panel from '../views/TaskingPanel.vue';\nexport const x = Panel;\n", 'renderer/src/features/*/stores', 'renderer/src/features/*/views'],
    ['renderer/src/features/tasking/views/x.ts', "import { getBridge } from '../../../platform/bridge';\nexport const x = getBridge;\n", 'renderer/src/features/*/views', 'renderer/src/platform/bridge.ts'],
    ['renderer/src/features/tasking/model/x.ts', "import { useTaskingStore } from '../stores/tasking';\nexport const x = useTaskingStore;\n", 'renderer/src/features/*/model', 'renderer/src/features/*/stores'],
    ['renderer/src/features/tasking/model/x.ts', "import { getBridge } from '../../../platform/bridge';\nexport const x = getBridge;\n", 'renderer/src/features/*/model', 'renderer/src/platform/bridge.ts'],
    ['renderer/src/features/tasking/views/x.ts', "import Panel from './TaskingPanel.vue';\nimport c from '../contribution';\nexport const x = [Panel, c];\n", 'renderer/src/features/*/views', 'renderer/src/features/*/contribution.ts'],
    // Only stores call the bridge: never the platform's lib, map, preview engine or views.
    ['renderer/src/platform/lib/x.ts', "import { getBridge } from '../bridge';\nexport const x = getBridge;\n", 'renderer/src/platform/lib', 'renderer/src/platform/bridge.ts'],
    ['renderer/src/platform/map/x.ts', "import { getBridge } from '../bridge';\nexport const x = getBridge;\n", 'renderer/src/platform/map', 'renderer/src/platform/bridge.ts'],
    ['renderer/src/platform/preview/x.ts', "import { getBridge } from '../bridge';\nexport const x = getBridge;\n", 'renderer/src/platform/preview', 'renderer/src/platform/bridge.ts'],
    ['renderer/src/shell/x.ts', "import { getBridge } from '../platform/bridge';\nexport const x = getBridge;\n", 'renderer/src/shell', 'renderer/src/platform/bridge.ts'],
    // Stores ask main only through the request module (createRequest, request, perConnection, listen), never the bridge itself.
    ['renderer/src/platform/stores/x.ts', "import { getBridge } from '../bridge';\nexport const x = () => getBridge().appInfo();\n", 'renderer/src/platform/stores', 'renderer/src/platform/bridge.ts'],
    ['renderer/src/features/library/stores/x.ts', "import { createRequest } from '../../../platform/request';\nimport { getBridge } from '../../../platform/bridge';\nexport const x = [createRequest, () => getBridge().libraryRemove({ id: 'a' })];\n", 'renderer/src/features/*/stores', 'renderer/src/platform/bridge.ts'],
    ['renderer/src/features/library/views/X.vue', "<script setup lang=\"ts\">\nimport { ask } from '../../../platform/request';\nvoid ask;\n</script>\n<template><p /></template>\n", 'renderer/src/features/*/views', 'renderer/src/platform/request.ts'],
    ['renderer/src/platform/lib/x.ts', "import { createRequest } from '../request';\nexport const x = createRequest;\n", 'renderer/src/platform/lib', 'renderer/src/platform/request.ts'],
    // The platform is a floor: never a feature (its stores, models, index or contribution) nor the shell.
    ['renderer/src/platform/components/X.vue', "<script setup lang=\"ts\">\nimport { useTeamStore } from '../../features/team';\nvoid useTeamStore;\n</script>\n<template><p /></template>\n", 'renderer/src/platform/components', 'renderer/src/features/*/index.ts'],
    ['renderer/src/platform/map/x.ts', "export const x = () => import('../../features/tasking/stores/tasking-orders');\n", 'renderer/src/platform/map', 'renderer/src/features/*/stores'],
    ['renderer/src/platform/stores/x.ts', "import { panels } from '../../shell/panels';\nexport const x = panels;\n", 'renderer/src/platform/stores', 'renderer/src/shell'],
    ['renderer/src/platform/lib/x.ts', "import { FEATURES } from '../../shell/features';\nexport const x = FEATURES;\n", 'renderer/src/platform/lib', 'renderer/src/shell'],
    ['renderer/src/platform/stores/x.ts', "import { useTaskingStore } from '../../features/tasking/stores/tasking';\nexport const x = useTaskingStore;\n", 'renderer/src/platform/stores', 'renderer/src/features/*/stores'],
    ['renderer/src/platform/lib/x.ts', "import { summarizeOrder } from '../../features/tasking/model/tasking-records';\nexport const x = summarizeOrder;\n", 'renderer/src/platform/lib', 'renderer/src/features/*/model'],
    // The map imports no feature: a feature's layers come through its contribution's mapLayers.
    ['renderer/src/shell/MapView.vue', "<script setup lang=\"ts\">\nimport { useSettingsStore } from '../features/settings';\nvoid useSettingsStore;\n</script>\n<template><div /></template>\n", 'shell map views', 'renderer/src/features/*/index.ts'],
    ['renderer/src/shell/aoi-tools.ts', "export const x = () => import('../features/fields/views/parcel-layer');\n", 'shell map views', 'renderer/src/features/*/views'],
  ])('%s: %s is refused, naming both folders and what the table allows', async (file, code, from, to) => {
    const errors = await tableErrors(file, code);
    const allowed = (LAYERS as Layer[]).find((l) => l.name === from)!.may;
    const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'); // a `*` of a feature layer stands for a feature name in the path
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`^layers/allowed-imports: ${esc(from)} may not import ${esc(to)} \\(${esc(to).replace(/\\\*/g, '[^/]+')}[^)]*\\); the layer table lets ${esc(from)} import ${esc(allowed.join(', ') || 'nothing outside itself')}\\.$`));
  });

  it.each([
    ['main/library/x.ts', "import { writePyramid } from '../geotiff/index.js';\nimport { AppError } from '../../common/errors.js';\nexport const x = [writePyramid, AppError];\n"],
    ['main/watches/x.ts', "import type { Emit } from '../platform/emit';\nimport type { HandlerTable } from '../ipc';\nexport type X = Emit | HandlerTable;\n"],
    ['main/hosts/x.ts', "import { startSimulator } from '../../simulator';\nexport const x = startSimulator;\n"],
    ['simulator/raster/x.ts', "import { writePyramid } from '../../main/geotiff/index.js';\nimport { utmEpsgFor } from '../../common/geodesy.js';\nexport const x = [writePyramid, utmEpsgFor];\n"],
    ['renderer/src/platform/stores/x.ts', "import { ask } from '../request';\nimport type { LibraryItem } from '../lib/library-item';\nexport const x = ask;\nexport type X = LibraryItem;\n"],
    ['renderer/src/features/analysis/views/X.vue', "<script setup lang=\"ts\">\nimport { useLibraryStore } from '../../library';\nimport Icon from '../../../platform/components/Icon.vue';\nvoid [useLibraryStore, Icon];\n</script>\n<template><p /></template>\n"],
    ['renderer/src/features/tasking/views/X.vue', "<script setup lang=\"ts\">\nimport AreaSection from './AreaSection.vue';\nimport { useTaskingStore } from '../stores/tasking';\nimport { summarizeOrder } from '../model/tasking-records';\nimport { draftFromOrder } from '../../watches';\nimport { useUiStore } from '../../../platform/stores/ui';\nimport Icon from '../../../platform/components/Icon.vue';\nvoid [AreaSection, useTaskingStore, summarizeOrder, draftFromOrder, useUiStore, Icon];\n</script>\n<template><p /></template>\n"],
    ['renderer/src/features/notifications/stores/x.ts', "import { useTaskingOrdersStore } from '../../tasking';\nimport { listen } from '../../../platform/request';\nexport const x = [useTaskingOrdersStore, listen];\n"],
    ['common/grid/x.ts', "import proj4 from 'proj4';\nimport { METRES_PER_DEGREE } from '../geodesy.js';\nexport const x = [proj4, METRES_PER_DEGREE];\n"],
  ])('%s: allowed imports pass', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });
});

describe('a feature reaches another only through its index.ts', () => {
  it.each([
    ['renderer/src/features/watches/views/x.ts', "import Panel from '../../tasking/views/TaskingPanel.vue';\nexport const x = Panel;\n", 'watches', 'renderer/src/features/tasking/views/TaskingPanel.vue'],
    // The Library panel hosts the Analysis block through a slot a contribution fills, never by importing it.
    ['renderer/src/features/library/views/x.ts', "export const x = () => import('../../analysis/views/AnalysisBlock.vue');\n", 'library', 'renderer/src/features/analysis/views/AnalysisBlock.vue'],
    ['renderer/src/features/tasking/views/x.ts', "import { draftFromOrder } from '../../watches/model/watch-draft';\nexport const x = draftFromOrder;\n", 'tasking', 'renderer/src/features/watches/model/watch-draft.ts'],
    ['renderer/src/features/billing/stores/x.ts', "import { useAccountStore } from '../../account/stores/account';\nexport const x = useAccountStore;\n", 'billing', 'renderer/src/features/account/stores/account.ts'],
    ['renderer/src/features/tasking/contribution.ts', "export const x = () => import('../watches/stores/watches');\n", 'tasking', 'renderer/src/features/watches/stores/watches.ts'],
  ])('%s: %s is refused, naming the index to go through', async (file, code, from, target) => {
    const to = target.split('/')[3];
    expect(await tableErrors(file, code)).toEqual([
      `layers/allowed-imports: The ${from} feature may not import ${target}: another feature is reached only through its public surface, renderer/src/features/${to}/index.ts.`,
    ]);
  });

  it("an index.ts re-exports only its own feature's models and stores, and another feature's index is not its to re-export", async () => {
    expect(await layerErrors('renderer/src/features/tasking/index.ts', "export { useTaskingStore } from './stores/tasking';\nexport { summarizeOrder } from './model/tasking-records';\n")).toEqual([]);
    expect(await layerErrors('renderer/src/features/tasking/index.ts', "export { default } from './views/TaskingPanel.vue';\n")).toHaveLength(1);
    expect(await layerErrors('renderer/src/features/tasking/index.ts', "export { useWatchesStore } from '../watches';\n")).toHaveLength(1);
  });
});

describe('lint fails for fixture files on disk', () => {
  const written: string[] = [];
  async function fixture(file: string, code: string): Promise<string> {
    const abs = path.join(root, file);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, code);
    written.push(abs);
    return abs;
  }
  afterEach(async () => {
    for (const f of written.splice(0)) await rm(f, { force: true });
    await rm(path.join(root, 'main/zz-layers-fixture'), { recursive: true, force: true });
  });

  it('(a) an import the table does not allow', async () => {
    const file = await fixture('main/watches/zz-layers-fixture.ts', "import type { AppCore } from '../app/app';\nexport type X = AppCore;\n");
    const errors = layerMessages(await eslint.lintFiles([file]));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^layers\/allowed-imports: main\/watches may not import main\/app \(main\/app\/app\.ts\); the layer table lets main\/watches import common, .*main\/spend/);
  });

  it('(b) a file in a folder the table does not list', async () => {
    const file = await fixture('main/zz-layers-fixture/x.ts', 'export const x = 1;\n');
    expect(layerMessages(await eslint.lintFiles([file]))).toEqual([
      'layers/allowed-imports: main/zz-layers-fixture/x.ts is in main/zz-layers-fixture, a folder the layer table (scripts/layers.js) does not list; add it there and in docs/ARCHITECTURE.md.',
    ]);
  });

  it('(c) an import cycle, type-only imports included', async () => {
    const a = await fixture('main/shared/zz-cycle-a.ts', "import type { B } from './zz-cycle-b';\nexport type A = { b?: B };\n");
    const b = await fixture('main/shared/zz-cycle-b.ts', "import type { C } from './zz-cycle-c.js';\nexport type B = { c?: C };\n");
    await fixture('main/shared/zz-cycle-c.ts', "import type { A } from './zz-cycle-a';\nexport type C = { a?: A };\n");
    const errors = layerMessages(await eslint.lintFiles([a, b]));
    expect(errors).toEqual([
      'layers/no-cycles: Import cycle: main/shared/zz-cycle-a.ts -> main/shared/zz-cycle-b.ts -> main/shared/zz-cycle-c.ts -> main/shared/zz-cycle-a.ts.',
      'layers/no-cycles: Import cycle: main/shared/zz-cycle-b.ts -> main/shared/zz-cycle-c.ts -> main/shared/zz-cycle-a.ts -> main/shared/zz-cycle-b.ts.',
    ]);
    expect(importCycles(sourceFiles())).toEqual([expect.arrayContaining(['main/shared/zz-cycle-a.ts', 'main/shared/zz-cycle-b.ts', 'main/shared/zz-cycle-c.ts'])]);
  });

  it('(d) a folder-level cycle: two features that import each other through their index.ts, no file cycle', async () => {
    // Tasking's views already use the watches feature; a watches store using tasking closes the knot.
    const file = await fixture('renderer/src/features/watches/stores/zz-folder-cycle.ts', "import { useTaskingOrdersStore } from '../../tasking';\nexport const x = useTaskingOrdersStore;\n");
    const errors = layerMessages(await eslint.lintFiles([file]));
    expect(errors).toEqual([
      expect.stringMatching(/^layers\/no-folder-cycles: Folder cycle: renderer\/src\/features\/watches -> renderer\/src\/features\/tasking -> (\S+ -> )*renderer\/src\/features\/watches; this import \(renderer\/src\/features\/tasking\/index\.ts\) closes it\.$/),
    ]);
    expect(importCycles(sourceFiles())).toEqual([]);
    expect(folderCycles(sourceFiles())).toEqual([expect.arrayContaining([expect.stringMatching(/^renderer\/src\/features\/watches \(renderer\/src\/features\/watches\/stores\/zz-folder-cycle\.ts -> /)])]);
  });

  it('(e) a platform file importing a feature, and a feature file skipping the index of another', async () => {
    const platform = await fixture('renderer/src/platform/lib/zz-floor.ts', "export const x = () => import('../../features/tasking');\n");
    const skip = await fixture('renderer/src/features/billing/stores/zz-skip.ts', "import { useAccountStore } from '../../account/stores/account';\nexport const x = useAccountStore;\n");
    const errors = layerMessages(await eslint.lintFiles([platform, skip]));
    // The platform's import closes a folder cycle too (tasking uses the platform).
    expect(errors.filter((m) => m.startsWith('layers/no-folder-cycles:'))).toHaveLength(1);
    expect(errors.filter((m) => !m.startsWith('layers/no-folder-cycles:'))).toEqual([
      expect.stringMatching(/^layers\/allowed-imports: renderer\/src\/platform\/lib may not import renderer\/src\/features\/\*\/index\.ts \(renderer\/src\/features\/tasking\/index\.ts\)/),
      'layers/allowed-imports: The billing feature may not import renderer/src/features/account/stores/account.ts: another feature is reached only through its public surface, renderer/src/features/account/index.ts.',
    ]);
  });
});

describe('the real tree and the table', () => {
  it('every source file is in a layer, every import is allowed, and the import graph has 0 cycles, between files or between folders', () => {
    const files: string[] = sourceFiles();
    expect(files.length).toBeGreaterThan(300);
    expect(treeRefusals(files)).toEqual([]);
    expect(importCycles(files)).toEqual([]);
    expect(folderCycles(files)).toEqual([]);
  });

  it('the table itself is acyclic, names only its own layers and gives each path one layer', () => {
    expect(tableProblems()).toEqual([]);
    // The check finds a cycle when there is one.
    expect(tableProblems([{ name: 'a', may: ['b'] }, { name: 'b', may: ['c'] }, { name: 'c', may: ['a'] }])).toEqual(['cycle: a -> b -> c -> a']);
    expect(layerOf('renderer/src/platform/bridge.ts').name).toBe('renderer/src/platform/bridge.ts');
    expect(layerOf('renderer/src/platform/request.ts').name).toBe('renderer/src/platform/request.ts');
    expect(layerOf('renderer/src/shell/MapView.vue').name).toBe('shell map views');
    expect(layerOf('renderer/src/shell/App.vue').name).toBe('renderer/src/shell');
    expect(layerOf('renderer/src/platform/contributions.ts').name).toBe('renderer/src/platform/contributions.ts');
    expect(layerOf('renderer/src/features/tasking/index.ts').name).toBe('renderer/src/features/*/index.ts');
    expect(layerOf('renderer/src/features/tasking/contribution.ts').name).toBe('renderer/src/features/*/contribution.ts');
    expect(layerOf('renderer/src/platform/map/vector-layers.ts').name).toBe('renderer/src/platform/map');
    expect(layerOf('renderer/src/platform/stores/aoi.ts').name).toBe('renderer/src/platform/stores');
    expect(layerOf('renderer/src/platform/x.ts')).toBeUndefined();
    expect(layerOf('renderer/src/stores/x.ts')).toBeUndefined();
    expect(layerOf('main/downloads/batch/run-batch.ts').name).toBe('main/downloads');
    expect(layerOf('main/batch-plan/plan.ts').name).toBe('main/batch-plan');
    expect(layerOf('main/new-folder/x.ts')).toBeUndefined();
    expect(layerOf('renderer/src/features/tasking/views/TaskingPanel.vue').name).toBe('renderer/src/features/*/views');
    expect(layerOf('renderer/src/features/tasking/stores/order-placement.ts').name).toBe('renderer/src/features/*/stores');
    expect(layerOf('renderer/src/features/tasking/tasking.ts')).toBeUndefined();
    expect(layerOf('renderer/src/features/tasking/other/x.ts')).toBeUndefined();
  });

  it('no feature of main imports the composition root (main/app) or a host: only the hosts and the entry do', () => {
    const importers = (LAYERS as Layer[]).filter((l) => l.may.includes('main/app') || l.may.includes('main/hosts')).map((l) => l.name);
    expect(importers.sort()).toEqual(['main', 'main/hosts']);
  });

  it("docs/ARCHITECTURE.md's layer table lists the same folders and allowances", async () => {
    const doc = await readFile(path.join(root, 'docs/ARCHITECTURE.md'), 'utf8');
    const start = doc.indexOf('## Folders and layers');
    const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
    const rows = section.split('\n').filter((l) => l.startsWith('| `')).map((l) => l.split(' | '));
    const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).sort();
    const documented = rows.map(([paths, , may]) => ({ paths: ticked(paths!), may: ticked(may!) }));
    const inCode = (LAYERS as Layer[]).map((l) => ({ paths: [...pathsOf(l)].sort(), may: [...l.may].sort() }));
    expect(documented).toEqual(expect.arrayContaining(inCode));
    expect(documented).toHaveLength(inCode.length);
  });
});
