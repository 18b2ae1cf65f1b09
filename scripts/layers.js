// @ts-check
/**
 * The layer table: for each folder of main, the renderer, preload and common, the folders it may
 * import. eslint.config.js generates the layer lint from it (scripts/eslint-layers.js) and
 * docs/ARCHITECTURE.md's layer table lists the same rows (test/build/lint-layers.test.ts checks both).
 *
 * A layer is a named set of paths (folders, or single files that sit apart from their folder's
 * layer). A source file belongs to the layer of its own path if one names it, else to its folder's:
 * `main/<folder>`, `renderer/src/platform/<folder>`, `renderer/src/features/<feature>/<role>`,
 * `preload/<folder>`, `common`, `simulator`, or the folder itself (`main`, `renderer/src`, `preload`) for a file
 * directly inside it. A layer may always import itself.
 *
 * Platform: `renderer/src/platform/` holds what several features share, each sub-folder (lib,
 * raster, map, preview, stores, components) a layer of its own, the bridge and the request module
 * (`request.ts`, the only importer of the bridge); a file directly in `platform/`, other than those
 * and the registries, is in no layer. Its lib, raster, map, preview and stores never import a
 * feature; its components only a feature's models and stores. The map's own views (the map, the AOI
 * toolbar and its tools, in the shell) import no feature either: a feature adds its layers to the
 * map through its contribution.
 *
 * Features: `renderer/src/features/<feature>/` holds one feature's code in three sub-folders, each a
 * role with the renderer's rules: `model/` (pure code), `stores/` (Pinia stores, asking main through `platform/request.ts`) and
 * `views/` (Vue components and their map helpers). The table names a role once for every feature
 * with `*` in place of the feature name; a file directly in a feature folder, or in another
 * sub-folder, is in no layer. A feature's views may import only their own feature's views: a layer
 * named with `*` imports itself only inside the same feature, unless its `may` lists itself (models
 * and stores may use another feature's models and stores; views never another feature's views).
 */

/**
 * `own`: layers a `*` layer may import only inside its own feature (a feature's index.ts re-exports
 * its models and stores); not edges of the table, whose acyclicity they would only seem to break.
 * @typedef {{ name: string, paths?: string[], may: string[], own?: string[] }} Layer
 */

/** @type {Layer[]} */
export const LAYERS = [
  // ---- shared by every process
  { name: 'common', may: [] },
  { name: 'preload/contract', may: ['common'] },
  { name: 'preload', may: ['preload/contract'] },

  // ---- main, lowest first. The ports and plumbing (platform, shared) at the bottom; each feature
  // serves its own slice of the channel table; `main/app` (the composition root) only wires
  // them; the hosts and the entry mount it. No feature imports the root or a host.
  // The features' schema steps of swath.db: SQL text in the feature's folder, imported only by the
  // database module, which orders them (main/shared/database.ts `MIGRATIONS`).
  {
    name: 'main schema steps',
    paths: [
      'main/library/schema/library-catalog.ts', 'main/team/schema/team-outbox.ts', 'main/downloads/schema/download-jobs.ts', 'main/watches/schema/watches.ts',
      'main/spend/schema/spend-ledger.ts', 'main/library/schema/library-list-indexes.ts', 'main/spend/schema/spend-per-account.ts', 'main/library/schema/library-request-keys.ts',
      'main/fields/schema/parcel-sets.ts',
      'main/fields/schema/field-statistics.ts',
      'main/fields/schema/field-watches.ts',
    ],
    may: [],
  },
  { name: 'main/shared', may: ['common', 'main schema steps'] },
  { name: 'main/platform', may: ['preload/contract'] },
  { name: 'main/geotiff', may: ['common', 'main/shared'] },
  { name: 'main/api', may: ['common', 'preload/contract', 'main/platform', 'main/shared'] },
  { name: 'main/ipc', may: ['common', 'preload/contract', 'main/platform', 'main/api'] },
  { name: 'main/logging', may: ['main/platform'] },
  { name: 'main/profiles', may: ['common', 'preload/contract', 'main/platform', 'main/shared', 'main/api', 'main/ipc'] },
  { name: 'main/settings', may: ['common', 'preload/contract', 'main/platform', 'main/shared', 'main/ipc'] },
  { name: 'main/library', may: ['common', 'main/platform', 'main/shared', 'main/geotiff', 'main/ipc'] },
  { name: 'main/notifications', may: ['preload/contract', 'main/platform', 'main/shared', 'main/ipc'] },
  { name: 'main/policy', may: ['common', 'main/platform', 'main/ipc', 'main/profiles'] },
  { name: 'main/about', may: ['preload/contract', 'main/shared', 'main/ipc'] },
  { name: 'main/updates', may: ['common', 'main/platform', 'main/shared', 'main/ipc', 'main/policy'] },
  { name: 'main/diagnostics', may: ['common', 'preload/contract', 'main/platform', 'main/shared', 'main/ipc', 'main/logging', 'main/policy', 'main/updates'] },
  { name: 'main/batch-plan', may: ['common', 'main/shared', 'main/api'] },
  { name: 'main/spend', may: ['common', 'preload/contract', 'main/platform', 'main/shared', 'main/api', 'main/ipc', 'main/batch-plan'] },
  { name: 'main/exports', may: ['common', 'main/platform', 'main/shared', 'main/ipc', 'main/library'] },
  { name: 'main/brief', may: ['common', 'preload/contract', 'main/platform', 'main/shared', 'main/ipc'] },
  { name: 'main/analysis', may: ['common', 'preload/contract', 'main/shared', 'main/geotiff', 'main/ipc', 'main/library'] },
  { name: 'main/timelapse', may: ['common', 'preload/contract', 'main/shared', 'main/ipc'] },
  { name: 'main/team', may: ['common', 'preload/contract', 'main/platform', 'main/shared', 'main/api', 'main/ipc', 'main/profiles', 'main/library', 'main/exports', 'main/policy'] },
  { name: 'main/downloads', may: ['common', 'main/platform', 'main/shared', 'main/geotiff', 'main/api', 'main/ipc', 'main/library', 'main/batch-plan', 'main/spend', 'main/team'] },
  { name: 'main/connection', may: ['common', 'preload/contract', 'main/platform', 'main/api', 'main/ipc', 'main/profiles', 'main/downloads', 'main/spend'] },
  { name: 'main/account', may: ['main/api', 'main/ipc'] },
  { name: 'main/billing', may: ['main/api', 'main/ipc'] },
  { name: 'main/imagery', may: ['common', 'main/api', 'main/ipc', 'main/downloads', 'main/spend'] },
  { name: 'main/tasking', may: ['common', 'main/api', 'main/ipc', 'main/spend'] },
  {
    name: 'main/watches',
    may: ['common', 'preload/contract', 'main/platform', 'main/shared', 'main/api', 'main/ipc', 'main/profiles', 'main/library', 'main/batch-plan', 'main/downloads', 'main/spend', 'main/notifications'],
  },
  // Parcel sets and their import, field statistics, monitoring through watches, exports.
  {
    name: 'main/fields',
    may: ['common', 'preload/contract', 'main/platform', 'main/shared', 'main/geotiff', 'main/ipc', 'main/library', 'main/analysis', 'main/notifications', 'main/watches'],
  },
  {
    name: 'main/app',
    may: ['preload/contract', 'main/platform', 'main/shared', 'main/api', 'main/ipc', 'main/profiles', 'main/settings', 'main/library', 'main/notifications', 'main/policy', 'main/spend', 'main/exports', 'main/brief', 'main/analysis', 'main/timelapse', 'main/team', 'main/downloads', 'main/connection', 'main/account', 'main/billing', 'main/imagery', 'main/tasking', 'main/watches', 'main/fields', 'main/about', 'main/logging', 'main/updates', 'main/diagnostics'],
  },
  { name: 'simulator', may: ['common', 'main/shared', 'main/geotiff'] },
  {
    name: 'main/hosts',
    may: ['preload/contract', 'main/platform', 'main/shared', 'main/api', 'main/ipc', 'main/library', 'main/policy', 'main/app', 'simulator'],
  },
  { name: 'main', may: ['main/platform', 'main/ipc', 'main/logging', 'main/policy', 'main/updates', 'main/diagnostics', 'main/notifications', 'main/app', 'main/hosts'] },

  // ---- the renderer: views use stores, stores use the bridge and the model code. The platform is a
  // floor: it never imports a feature or the shell. Features reach each other only through a
  // feature's index.ts (its public surface: models and stores) and hand the window their parts
  // through their contribution.ts; the shell is the only code that imports every contribution.
  { name: 'renderer/src/platform/bridge.ts', may: ['preload/contract'] },
  // The one way a store asks main (loading, error routing, retry, cancel): no store imports the bridge.
  { name: 'renderer/src/platform/request.ts', may: ['preload/contract', 'renderer/src/platform/bridge.ts', 'renderer/src/platform/lib'] },
  { name: 'renderer/src/platform/raster', may: ['common'] },
  { name: 'renderer/src/platform/cartography', may: ['common'] },
  { name: 'renderer/src/platform/lib', may: ['common', 'preload/contract'] },
  { name: 'renderer/src/platform/contributions.ts', may: ['renderer/src/platform/lib'] },
  { name: 'renderer/src/platform/map', may: ['common', 'preload/contract', 'renderer/src/platform/lib', 'renderer/src/platform/raster'] },
  { name: 'renderer/src/platform/preview', may: ['common', 'preload/contract', 'renderer/src/platform/lib', 'renderer/src/platform/raster', 'renderer/src/platform/map'] },
  { name: 'renderer/src/platform/stores', may: ['common', 'preload/contract', 'renderer/src/platform/request.ts', 'renderer/src/platform/lib', 'renderer/src/platform/raster', 'renderer/src/platform/map', 'renderer/src/platform/preview'] },
  {
    name: 'renderer/src/platform/components',
    may: ['common', 'preload/contract', 'renderer/src/platform/lib', 'renderer/src/platform/raster', 'renderer/src/platform/cartography', 'renderer/src/platform/map', 'renderer/src/platform/stores', 'renderer/src/platform/contributions.ts'],
  },
  { name: 'renderer/src/features/*/model', may: ['common', 'preload/contract', 'renderer/src/platform/lib', 'renderer/src/platform/cartography', 'renderer/src/features/*/index.ts'] },
  {
    name: 'renderer/src/features/*/stores',
    may: ['common', 'preload/contract', 'renderer/src/platform/request.ts', 'renderer/src/platform/lib', 'renderer/src/platform/raster', 'renderer/src/platform/cartography', 'renderer/src/platform/map', 'renderer/src/platform/preview', 'renderer/src/platform/stores', 'renderer/src/platform/contributions.ts', 'renderer/src/features/*/model', 'renderer/src/features/*/index.ts'],
  },
  { name: 'renderer/src/features/*/index.ts', may: [], own: ['renderer/src/features/*/model', 'renderer/src/features/*/stores'] },
  {
    name: 'renderer/src/features/*/views',
    may: ['common', 'preload/contract', 'renderer/src/platform/lib', 'renderer/src/platform/raster', 'renderer/src/platform/cartography', 'renderer/src/platform/map', 'renderer/src/platform/stores', 'renderer/src/platform/components', 'renderer/src/features/*/model', 'renderer/src/features/*/stores', 'renderer/src/features/*/index.ts'],
  },
  {
    name: 'renderer/src/features/*/contribution.ts',
    may: ['renderer/src/platform/lib', 'renderer/src/platform/contributions.ts', 'renderer/src/features/*/model', 'renderer/src/features/*/stores', 'renderer/src/features/*/views'],
  },
  // The map and its AOI toolbar and tools: platform only, no feature. A feature's layers reach the map
  // through its contribution's mapLayers (or the platform's vector and raster layers).
  {
    name: 'shell map views',
    paths: ['renderer/src/shell/MapView.vue', 'renderer/src/shell/AoiToolbar.vue', 'renderer/src/shell/aoi-tools.ts'],
    may: ['common', 'preload/contract', 'renderer/src/platform/lib', 'renderer/src/platform/map', 'renderer/src/platform/preview', 'renderer/src/platform/stores', 'renderer/src/platform/components', 'renderer/src/platform/contributions.ts'],
  },
  {
    name: 'renderer/src/shell',
    may: ['shell map views', 'common', 'preload/contract', 'renderer/src/platform/lib', 'renderer/src/platform/raster', 'renderer/src/platform/map', 'renderer/src/platform/preview', 'renderer/src/platform/stores', 'renderer/src/platform/components', 'renderer/src/platform/contributions.ts', 'renderer/src/features/*/index.ts', 'renderer/src/features/*/contribution.ts', 'renderer/src/features/*/views'],
  },
  { name: 'renderer/src', may: ['common', 'renderer/src/platform/lib', 'renderer/src/platform/stores', 'renderer/src/platform/components', 'renderer/src/shell'] },
];

/** The folders the table is about; a source file anywhere else (scripts/, test/) is not in a layer. */
export const LAYER_ROOTS = ['main', 'renderer', 'preload', 'common', 'simulator'];

/** A layer's paths: its own, else its name. */
export const pathsOf = (/** @type {Layer} */ layer) => layer.paths ?? [layer.name];

const byPath = new Map(LAYERS.flatMap((layer) => pathsOf(layer).map((p) => [p, layer])));

/**
 * The folder a repository-relative path (forward slashes) sits in, as the table names folders:
 * `main/<folder>`, `renderer/src/platform/<folder>`, `renderer/src/features/<feature>/<role>`,
 * `renderer/src/<folder>`, `preload/<folder>`, `common`, `simulator`; a file directly in `main`, `renderer/src`
 * or `preload` sits in that folder. Undefined outside the layer roots.
 * @param {string} rel
 * @returns {string | undefined}
 */
export function folderOf(rel) {
  const parts = rel.split('/');
  if (parts[0] === 'common' || parts[0] === 'simulator') return parts[0];
  if (parts[0] === 'renderer' && parts[1] === 'src' && parts[2] === 'features' && parts.length > 4) {
    return parts.length > 5 ? `renderer/src/features/${parts[3]}/${parts[4]}` : `renderer/src/features/${parts[3]}`;
  }
  if (parts[0] === 'renderer' && parts[1] === 'src' && parts[2] === 'platform' && parts.length > 4) return `renderer/src/platform/${parts[3]}`;
  if (parts[0] === 'renderer' && parts[1] === 'src') return parts.length > 3 ? `renderer/src/${parts[2]}` : 'renderer/src';
  if (parts[0] === 'renderer') return 'renderer';
  if (parts[0] === 'main' || parts[0] === 'preload') return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0];
  return undefined;
}

/**
 * The layer of a repository-relative path: the one that names the path itself, else its folder's.
 * @param {string} rel
 * @returns {Layer | undefined}
 */
export function layerOf(rel) {
  const folder = folderOf(rel);
  if (folder === undefined) return byPath.get(rel);
  const anyFeature = (/** @type {string} */ p) => p.replace(/^renderer\/src\/features\/[^/]+\//, 'renderer/src/features/*/');
  return byPath.get(rel) ?? byPath.get(folder) ?? byPath.get(anyFeature(folder)) ?? byPath.get(anyFeature(rel));
}

/**
 * The feature a repository-relative path belongs to (`tasking` for `renderer/src/features/tasking/…`),
 * else undefined.
 * @param {string} rel
 */
export function featureOf(rel) {
  const m = /^renderer\/src\/features\/([^/]+)\//.exec(rel);
  return m?.[1];
}

/**
 * Whether a file of `layer` at `fromRel` may import `toRel` as one of the layer's `own` imports (a file of
 * the same feature, in a layer its `own` lists).
 * @param {Layer} layer @param {string} fromRel @param {string} toRel
 */
export function ownImportAllowed(layer, fromRel, toRel) {
  const to = layerOf(toRel);
  return !!to && !!layer.own?.includes(to.name) && featureOf(fromRel) === featureOf(toRel);
}

/**
 * Whether a file of `layer` at `fromRel` may import `toRel`, a file of the same layer: always,
 * except that a layer named with `*` imports itself only inside one feature unless its `may` lists
 * itself (a feature's views never use another feature's views).
 * @param {Layer} layer @param {string} fromRel @param {string} toRel
 */
export function selfImportAllowed(layer, fromRel, toRel) {
  return !layer.name.includes('*') || layer.may.includes(layer.name) || featureOf(fromRel) === featureOf(toRel);
}

/** The table's own problems: unknown layer names, paths claimed twice, cycles (each as a path of names). */
export function tableProblems(layers = LAYERS) {
  /** @type {string[]} */
  const problems = [];
  const names = new Map(layers.map((l) => [l.name, l]));
  const seen = new Set();
  for (const layer of layers) {
    for (const p of pathsOf(layer)) {
      if (seen.has(p)) problems.push(`${p} is in two layers`);
      seen.add(p);
    }
    for (const m of layer.may) if (!names.has(m)) problems.push(`${layer.name} may import ${m}, which is not a layer`);
  }
  /** @type {Map<string, number>} 1 visiting, 2 done */
  const state = new Map();
  /** @param {string} name @param {string[]} trail */
  const visit = (name, trail) => {
    if (state.get(name) === 2) return;
    if (state.get(name) === 1) { problems.push(`cycle: ${[...trail.slice(trail.indexOf(name)), name].join(' -> ')}`); return; }
    state.set(name, 1);
    for (const m of names.get(name)?.may ?? []) if (m !== name) visit(m, [...trail, name]);
    state.set(name, 2);
  };
  for (const layer of layers) visit(layer.name, []);
  return problems;
}
