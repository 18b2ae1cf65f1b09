// @ts-check
/**
 * The layer lint, generated from the table in scripts/layers.js:
 * - `layers/allowed-imports`: a source file of main, the renderer, preload or common must sit in a
 *   layer of the table, and may import (statically, dynamically, or for types only) only its own
 *   layer and the layers the table lets it import.
 * - `layers/no-cycles`: no module imports itself back, through any chain of relative imports
 *   (type-only and dynamic ones included; `.vue` files by their <script> blocks). Each file's
 *   imports are read once per lint process (again only when the file changed).
 * - `layers/no-folder-cycles`: no folder of the renderer (a feature, a platform part, the shell)
 *   imports itself back through other folders, over the same imports.
 * - In `layers/allowed-imports` also: a feature imports another feature only through that
 *   feature's `index.ts`.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { LAYER_ROOTS, featureOf, folderOf, layerOf, ownImportAllowed, selfImportAllowed } from './layers.js';

const root = path.resolve(import.meta.dirname, '..');
const SOURCE = /\.(?:ts|vue|js|mjs)$/;
const rel = (/** @type {string} */ file) => path.relative(root, file).split(path.sep).join('/');
const inRoots = (/** @type {string} */ r) => LAYER_ROOTS.includes(r.split('/')[0] ?? '') && !r.startsWith('..');

/** @param {string} file */
const isFile = (file) => { try { return fs.statSync(file).isFile(); } catch { return false; } };

/**
 * The source file a relative specifier names (bundler resolution: `.js` written for `.ts`, no
 * extension, a folder's index), or undefined for anything else (packages, assets, missing files).
 * @param {string} from absolute path of the importing file
 * @param {string} specifier
 */
export function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier.split('?')[0] ?? '');
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.vue`, path.join(base, 'index.ts')];
  return candidates.find((c) => SOURCE.test(c) && isFile(c));
}

/** The <script> blocks of a .vue file, else the text itself. */
const scriptOf = (/** @type {string} */ file, /** @type {string} */ text) =>
  file.endsWith('.vue') ? [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n') : text;

/** The module specifiers of a file on disk (imports, re-exports, dynamic and type imports). */
const specifiersOf = (/** @type {string} */ file) =>
  ts.preProcessFile(scriptOf(file, fs.readFileSync(file, 'utf8')), true, true).importedFiles.map((i) => i.fileName);

/** @type {Map<string, { mtimeMs: number, imports: string[] }>} */
const importCache = new Map();

/** The files `file` imports (relative, resolved), read from disk once per change. */
function importsOf(/** @type {string} */ file) {
  let mtimeMs;
  try { mtimeMs = fs.statSync(file).mtimeMs; } catch { return []; }
  const cached = importCache.get(file);
  if (cached?.mtimeMs === mtimeMs) return cached.imports;
  const imports = specifiersOf(file)
    .map((s) => resolveImport(file, s))
    .filter((f) => f !== undefined);
  importCache.set(file, { mtimeMs, imports });
  return imports;
}

/** The shortest chain of imports from `start` back to `target` (both included), or undefined. */
function chainTo(/** @type {string} */ start, /** @type {string} */ target) {
  /** @type {Map<string, string | null>} */
  const parent = new Map([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = /** @type {string} */ (queue[i]);
    if (file === target) {
      const chain = [];
      for (let f = /** @type {string | null | undefined} */ (file); f; f = parent.get(f)) chain.unshift(f);
      return chain;
    }
    for (const next of importsOf(file)) if (!parent.has(next)) { parent.set(next, file); queue.push(next); }
  }
  return undefined;
}

/**
 * Calls `check(node, specifier)` for every module specifier of the file: imports, re-exports,
 * dynamic imports and `import('x')` types.
 * @param {(node: any, specifier: string) => void} check
 */
function specifierVisitors(check) {
  /** @param {any} node */
  const fromSource = (node) => { if (node.source && typeof node.source.value === 'string') check(node.source, node.source.value); };
  return {
    ImportDeclaration: fromSource,
    ExportNamedDeclaration: fromSource,
    ExportAllDeclaration: fromSource,
    ImportExpression: fromSource,
    /** @param {any} node */
    TSImportType(node) {
      const arg = node.argument?.literal ?? node.argument;
      if (arg && typeof arg.value === 'string') check(arg, arg.value);
    },
  };
}


/**
 * Why the table refuses `specifier` imported by `file` (an ESLint message id and its data), or
 * undefined when it allows it. Packages and assets are not the table's business.
 * @param {string} file absolute path of the importing file
 * @param {string} specifier
 * @returns {{ messageId: 'notAllowed' | 'outside' | 'notIndex', data: Record<string, string> } | undefined}
 */
export function refusalOf(file, specifier) {
  const layer = layerOf(rel(file));
  if (!layer || !specifier.startsWith('.')) return undefined;
  const resolved = resolveImport(file, specifier);
  const targetRel = rel(resolved ?? path.resolve(path.dirname(file), specifier.split('?')[0] ?? ''));
  if (!resolved && !SOURCE.test(targetRel) && /\.\w+$/.test(targetRel)) return undefined; // an asset
  if (!inRoots(targetRel)) return resolved ? { messageId: 'outside', data: { from: layer.name, target: targetRel } } : undefined;
  const to = layerOf(targetRel);
  const fromFeature = featureOf(rel(file));
  const toFeature = featureOf(targetRel);
  // A feature reaches another only through that feature's public surface, its index.ts.
  if (fromFeature && toFeature && fromFeature !== toFeature && targetRel !== `renderer/src/features/${toFeature}/index.ts`) {
    return { messageId: 'notIndex', data: { from: fromFeature, to: toFeature, target: targetRel } };
  }
  if (to === layer ? selfImportAllowed(layer, rel(file), targetRel) : to && (layer.may.includes(to.name) || ownImportAllowed(layer, rel(file), targetRel))) return undefined;
  return {
    messageId: 'notAllowed',
    data: {
      from: layer.name,
      to: to === layer ? folderOf(targetRel) ?? targetRel : to?.name ?? folderOf(targetRel) ?? targetRel,
      target: targetRel,
      allowed: layer.may.length ? layer.may.join(', ') : 'nothing outside itself',
    },
  };
}

/** Every source file of the layer roots (absolute paths). */
export function sourceFiles() {
  /** @type {string[]} */
  const files = [];
  const walk = (/** @type {string} */ dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) { if (e.name !== 'node_modules' && e.name !== '.tmp') walk(p); } else if (SOURCE.test(e.name)) files.push(p);
    }
  };
  for (const r of LAYER_ROOTS) walk(path.join(root, r));
  return files;
}

/**
 * The import graph's cycles: its strongly connected components of more than one module (or a
 * module importing itself), each as repository-relative paths.
 * @param {string[]} files
 */
export function importCycles(files = sourceFiles()) {
  let next = 0;
  /** @type {Map<string, { index: number, low: number }>} */
  const seen = new Map();
  /** @type {string[]} */
  const stack = [];
  const onStack = new Set();
  /** @type {string[][]} */
  const cycles = [];
  const connect = (/** @type {string} */ v) => {
    const node = { index: next, low: next };
    next++;
    seen.set(v, node);
    stack.push(v);
    onStack.add(v);
    for (const w of importsOf(v)) {
      const known = seen.get(w);
      if (!known) { connect(w); node.low = Math.min(node.low, /** @type {{ low: number }} */ (seen.get(w)).low); } else if (onStack.has(w)) node.low = Math.min(node.low, known.index);
    }
    if (node.low !== node.index) return;
    /** @type {string[]} */
    const component = [];
    let w;
    do { w = /** @type {string} */ (stack.pop()); onStack.delete(w); component.push(w); } while (w !== v);
    if (component.length > 1 || importsOf(v).includes(v)) cycles.push(component.map(rel));
  };
  for (const f of files) if (!seen.has(f)) connect(f);
  return cycles;
}

/**
 * The folder a renderer source file counts in for the folder-level cycle check: a feature
 * (`renderer/src/features/<feature>`), a platform part (`renderer/src/platform/<part>`, or the file
 * itself for one directly in `platform/`), the shell (`renderer/src/<folder>`), or `renderer/src` for the
 * entry files directly in it; undefined outside the renderer.
 * @param {string} r repository-relative path
 */
export function folderGroupOf(r) {
  const p = r.split('/');
  if (p[0] !== 'renderer' || p[1] !== 'src') return undefined;
  if (p[2] === 'features' || p[2] === 'platform') return p.length > 4 ? p.slice(0, 4).join('/') : r;
  return p.length > 3 ? p.slice(0, 3).join('/') : 'renderer/src';
}

/**
 * The folder graph: for each renderer folder (see {@link folderGroupOf}), the folders its files import
 * (static, dynamic and type-only imports; `.vue` files by their <script> blocks), each with one import
 * that makes the edge (for the message).
 * @param {string[]} files
 */
function folderGraph(files) {
  /** @type {Map<string, Map<string, [string, string]>>} */
  const graph = new Map();
  for (const file of files) {
    const from = folderGroupOf(rel(file));
    if (!from) continue;
    for (const target of importsOf(file)) {
      const to = folderGroupOf(rel(target));
      if (!to || to === from) continue;
      const out = graph.get(from) ?? new Map();
      if (!out.has(to)) out.set(to, [rel(file), rel(target)]);
      graph.set(from, out);
    }
  }
  return graph;
}

/** The shortest chain of folders from `start` to `target` in the graph (both included), or undefined. */
function folderChain(/** @type {Map<string, Map<string, [string, string]>>} */ graph, /** @type {string} */ start, /** @type {string} */ target) {
  /** @type {Map<string, string | null>} */
  const parent = new Map([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const g = /** @type {string} */ (queue[i]);
    if (g === target) {
      const chain = [];
      for (let f = /** @type {string | null | undefined} */ (g); f; f = parent.get(f)) chain.unshift(f);
      return chain;
    }
    for (const next of graph.get(g)?.keys() ?? []) if (!parent.has(next)) { parent.set(next, g); queue.push(next); }
  }
  return undefined;
}

/**
 * The renderer's folder-level cycles: each a chain of folders from one back to itself, each folder
 * with one import that makes its edge to the next; one cycle through each folder not already in a
 * cycle found before it.
 * @param {string[]} files
 */
export function folderCycles(files = sourceFiles()) {
  const graph = folderGraph(files);
  /** @type {string[][]} */
  const cycles = [];
  const inCycle = new Set();
  for (const [from, out] of graph) {
    if (inCycle.has(from)) continue;
    for (const to of out.keys()) {
      const back = folderChain(graph, to, from);
      if (!back) continue;
      const chain = [from, ...back];
      chain.forEach((g) => inCycle.add(g));
      cycles.push(chain.slice(0, -1).map((g, i) => `${g} (${graph.get(g)?.get(/** @type {string} */ (chain[i + 1]))?.join(' -> ')})`));
      break;
    }
  }
  return cycles;
}

/** What the table refuses in the tree on disk: files in no layer, and imports it does not allow (as lint messages). */
export function treeRefusals(files = sourceFiles()) {
  /** @type {string[]} */
  const refusals = [];
  for (const file of files) {
    if (!layerOf(rel(file))) { refusals.push(`${rel(file)}: in no layer`); continue; }
    for (const s of specifiersOf(file)) {
      const r = refusalOf(file, s);
      if (r) refusals.push(`${rel(file)}: ${r.data.from} may not import ${r.data.target}`);
    }
  }
  return refusals;
}

/** @type {import('eslint').Rule.RuleModule} */
const allowedImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports follow the layer table of scripts/layers.js.' },
    schema: [],
    messages: {
      noLayer: '{{file}} is in {{folder}}, a folder the layer table (scripts/layers.js) does not list; add it there and in docs/ARCHITECTURE.md.',
      notAllowed: '{{from}} may not import {{to}} ({{target}}); the layer table lets {{from}} import {{allowed}}.',
      outside: '{{from}} may not import {{target}}: it is outside the app layers (main, renderer, preload, common).',
      notIndex: 'The {{from}} feature may not import {{target}}: another feature is reached only through its public surface, renderer/src/features/{{to}}/index.ts.',
    },
  },
  create(context) {
    const file = context.filename;
    const fileRel = rel(file);
    if (!inRoots(fileRel)) return {};
    const layer = layerOf(fileRel);
    if (!layer) {
      return {
        Program(node) { context.report({ node, messageId: 'noLayer', data: { file: fileRel, folder: folderOf(fileRel) ?? fileRel } }); },
      };
    }
    return specifierVisitors((node, specifier) => {
      const refusal = refusalOf(file, specifier);
      if (refusal) context.report({ node, ...refusal });
    });
  },
};

/** @type {import('eslint').Rule.RuleModule} */
const noCycles = {
  meta: {
    type: 'problem',
    docs: { description: 'No import cycles between modules (type-only and dynamic imports included).' },
    schema: [],
    messages: { cycle: 'Import cycle: {{chain}}.' },
  },
  create(context) {
    const file = context.filename;
    if (!inRoots(rel(file))) return {};
    /** @type {Set<string>} */
    const reported = new Set();
    return specifierVisitors((node, specifier) => {
      const target = resolveImport(file, specifier);
      if (!target || reported.has(target)) return;
      reported.add(target);
      const chain = target === file ? [file] : chainTo(target, file);
      if (chain) context.report({ node, messageId: 'cycle', data: { chain: [file, ...chain].map(rel).join(' -> ') } });
    });
  },
};

/** @type {import('eslint').Rule.RuleModule} */
const noFolderCycles = {
  meta: {
    type: 'problem',
    docs: { description: "No import cycles between the renderer's folders: features/<feature>, platform/<part>, the shell." },
    schema: [],
    messages: { cycle: 'Folder cycle: {{chain}}; this import ({{target}}) closes it.' },
  },
  create(context) {
    const file = context.filename;
    const from = folderGroupOf(rel(file));
    if (!from) return {};
    /** @type {Map<string, Map<string, [string, string]>> | undefined} */
    let graph;
    /** @type {Set<string>} */
    const reported = new Set();
    return specifierVisitors((node, specifier) => {
      const target = resolveImport(file, specifier);
      const to = target && folderGroupOf(rel(target));
      if (!target || !to || to === from || reported.has(to)) return;
      reported.add(to);
      // The graph of the files on disk, with this file's own imports as they are on disk too.
      graph ??= folderGraph(sourceFiles());
      const back = folderChain(graph, to, from);
      if (back) context.report({ node, messageId: 'cycle', data: { chain: [from, ...back].join(' -> '), target: rel(target) } });
    });
  },
};

export default { meta: { name: 'layers' }, rules: { 'allowed-imports': allowedImports, 'no-cycles': noCycles, 'no-folder-cycles': noFolderCycles } };
