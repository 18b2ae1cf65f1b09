/**
 * The docs' generated blocks: lists the code owns (the IPC channels and which take a signal, the
 * events, the entries main starts off its thread, swath.db's schema steps, the error family, the
 * benchmarks), written between `<!-- docs:gen <name> -->` and `<!-- /docs:gen <name> -->` in
 * README.md and docs/*.md. `npm run docs:gen` rewrites every block; test/build/docs-map.test.ts fails
 * while one is stale or missing.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { channelNames, eventNames, methodName } from '../preload/contract/index.js';

/** The command that rewrites the blocks (named in the test's failure messages). */
export const DOCS_GEN_COMMAND = 'npm run docs:gen';

/** The files that may hold generated blocks, relative to the repository. */
export function docFiles(root: string): string[] {
  return ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

/** Every source file under `dir` (relative to `root`) whose name ends with one of `exts`, sorted. */
function sourceFiles(root: string, dir: string, exts: string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(child);
      } else if (exts.some((e) => entry.name.endsWith(e))) {
        out.push(child);
      }
    }
  };
  walk(dir);
  return out.sort();
}

const read = (root: string, rel: string): string => readFileSync(path.join(root, rel), 'utf8');
const ticked = (items: readonly string[]): string => items.map((i) => `\`${i}\``).join(', ');

/** The text of the call whose `(` is at `open`, up to its closing `)` (strings and comments are not parsed: the stores' calls need not). */
function argumentsAt(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

/**
 * The channels the renderer calls with a signal, the only calls with a call id main can abort. A
 * store asks main through renderer/src/platform/request.ts (the layer table lets no other code
 * import the bridge), and a call is tied to a signal when it runs in `ask(…, { signal })` (or an
 * error line's `.ask`) or in the `run` of a request made with `cancelsInMain: true`. A call's
 * channels are the `bridge.<method>(` in it, and those of a call builder it uses (a store's
 * function answering a `Call<…>`, such as the operations store's `call`).
 */
export function signalChannels(root: string): string[] {
  const byMethod = new Map<string, string>(channelNames.map((c) => [methodName(c), c]));
  const files = sourceFiles(root, 'renderer/src', ['.ts', '.vue']).map((file) => ({ file, text: read(root, file) }));
  const methodsIn = (span: string): string[] => [...span.matchAll(/\bbridge\s*\.\s*(\w+)\s*\(/g)].map((m) => m[1]!);
  const builders = new Map<string, string[]>();
  for (const { text } of files) {
    for (const m of text.matchAll(/function\s+(\w+)\s*\([^)]*\)\s*:\s*Call</g)) {
      const body = text.slice(m.index!, text.indexOf('\n  }\n', m.index!) + 4);
      builders.set(m[1]!, methodsIn(body));
    }
  }
  const found = new Set<string>();
  const take = (file: string, span: string): void => {
    const methods = [...methodsIn(span), ...[...builders].filter(([name]) => new RegExp(`\\.${name}\\s*\\(`).test(span)).flatMap(([, ms]) => ms)];
    for (const method of methods) {
      const channel = byMethod.get(method);
      if (!channel) throw new Error(`${file} calls bridge.${method}, which is no channel's method.`);
      found.add(channel);
    }
  };
  for (const { file, text } of files) {
    for (const m of text.matchAll(/(?<![\w$])ask\s*(?:<[^>]*>)?\s*\(/g)) {
      const args = argumentsAt(text, m.index! + m[0].length - 1);
      if (/,\s*\{[^{}]*\bsignal\b[^{}]*\}\s*$/.test(args)) take(file, args);
    }
    for (const m of text.matchAll(/(?:const|let)\s+(\w+)\b[^\n]*createRequest\s*<[^\n]*cancelsInMain:\s*true/g)) {
      for (const run of text.matchAll(new RegExp(`\\b${m[1]}(?:\\[[^\\]]*\\])?\\.run\\s*\\(`, 'g'))) take(file, argumentsAt(text, run.index! + run[0].length - 1));
    }
  }
  return channelNames.filter((c) => found.has(c));
}

/** Which contract file declares each channel (its `'<name>':` key). */
function declaringFiles(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of sourceFiles(root, 'preload/contract', ['.ts'])) {
    for (const m of read(root, file).matchAll(/^\s*'([a-z]+:[a-z-]+)':/gm)) out.set(m[1]!, file);
  }
  return out;
}

function channelsBlock(root: string): string {
  const signal = new Set(signalChannels(root));
  const declared = declaringFiles(root);
  const groups = new Map<string, string[]>();
  for (const c of channelNames) {
    const prefix = c.slice(0, c.indexOf(':'));
    groups.set(prefix, [...(groups.get(prefix) ?? []), c]);
  }
  const rows = [...groups].map(([prefix, list]) => {
    const names = list.map((c) => (signal.has(c) ? `\`${c}\` (signal)` : `\`${c}\``)).join(', ');
    const files = [...new Set(list.map((c) => declared.get(c) ?? '?'))].map((f) => `\`${f}\``).join(', ');
    return `| \`${prefix}:\` | ${list.length} | ${names} | ${files} |`;
  });
  return [
    `${channelNames.length} channels; the renderer calls ${signal.size} of them with a signal, marked (signal): those stop in`,
    'main when the renderer gives up, every other call runs to its end once sent.',
    '',
    '| prefix | count | channels | declared in |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    `${eventNames.length} events (main to the window): ${ticked(eventNames)}.`,
  ].join('\n');
}

/** The extra main entries of electron.vite.config.ts (besides `index`), with their sources and starters. */
export function mainEntries(root: string): { name: string; source: string; startedBy: string[] }[] {
  const config = read(root, 'electron.vite.config.ts');
  const mainPart = config.slice(config.indexOf('main: {'), config.indexOf('preload: {'));
  const entries = [...mainPart.matchAll(/'?([\w-]+)'?: resolve\('([^']+)'\)/g)].map((m) => ({ name: m[1]!, source: m[2]! }))
    .filter((e) => e.name !== 'index');
  const files = [...sourceFiles(root, 'main', ['.ts']), ...sourceFiles(root, 'simulator', ['.ts'])];
  return entries.map((e) => ({
    ...e,
    startedBy: files.filter((f) => f !== e.source && (() => {
      const text = read(root, f);
      return (text.includes('entryPoint(') && text.includes(`'${e.name}'`)) || text.includes(`'./${e.name}.js'`);
    })()),
  }));
}

function entriesBlock(root: string): string {
  return [
    '| bundled | source | started by |',
    '| --- | --- | --- |',
    ...mainEntries(root).map((e) => `| \`out/main/${e.name}.js\` | \`${e.source}\` | ${ticked(e.startedBy) || '—'} |`),
  ].join('\n');
}

/** swath.db's schema steps in order: their names and files (from main/shared/database.ts's MIGRATIONS). */
export async function schemaSteps(root: string): Promise<{ name: string; file: string }[]> {
  const text = read(root, 'main/shared/database.ts');
  const imports = new Map([...text.matchAll(/^import \{ (\w+) \} from '\.\.\/([\w/-]+\/schema\/[\w-]+)\.js';$/gm)].map((m) => [m[1]!, `main/${m[2]}.ts`]));
  const list = text.slice(text.indexOf('export const MIGRATIONS'));
  const ids = [...list.slice(list.indexOf('['), list.indexOf('];')).matchAll(/(\w+),/g)].map((m) => m[1]!);
  return Promise.all(ids.map(async (id) => {
    const file = imports.get(id);
    if (!file) throw new Error(`main/shared/database.ts: MIGRATIONS names ${id}, which is imported from no schema step file.`);
    const step = (await import(pathToFileURL(path.join(root, file)).href) as Record<string, { name: string }>)[id]!;
    return { name: step.name, file };
  }));
}

async function schemaStepsBlock(root: string): Promise<string> {
  return (await schemaSteps(root)).map((s, i) => `${i + 1}. ${s.name} (\`${s.file}\`)`).join('\n');
}

/** The error family: every class of main, common, preload and simulator that extends AppError, directly or not. */
export function errorClasses(root: string): { name: string; base: string; kind: string; file: string }[] {
  const found: { name: string; base: string; kind: string; file: string }[] = [];
  const all = ['main', 'common', 'preload', 'simulator'].flatMap((d) => sourceFiles(root, d, ['.ts']))
    .flatMap((file) => [...read(root, file).matchAll(/class (\w+) extends (\w+)(?:<([^>{]+)>)? \{/g)].map((m) => ({ name: m[1]!, base: m[2]!, kind: m[3]?.trim() ?? '', file })));
  const family = new Set(['AppError']);
  for (let grew = true; grew;) {
    grew = false;
    for (const c of all) {
      if (family.has(c.base) && !family.has(c.name)) {
        family.add(c.name);
        found.push(c);
        grew = true;
      }
    }
  }
  return found.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
}

function errorsBlock(root: string): string {
  return [
    '| class | extends | kind | file |',
    '| --- | --- | --- | --- |',
    ...errorClasses(root).map((c) => `| \`${c.name}\` | \`${c.base}\` | ${c.kind ? `\`${c.kind}\`` : 'any'} | \`${c.file}\` |`),
  ].join('\n');
}

/** The benchmarks `npm run bench` knows (test/bench/run.ts's BENCHES, in order). */
export function benchNames(root: string): string[] {
  const text = read(root, 'test/bench/run.ts');
  const list = text.slice(text.indexOf('const BENCHES'), text.indexOf('];', text.indexOf('const BENCHES')));
  return [...list.matchAll(/\['([\w-]+)', /g)].map((m) => m[1]!);
}

/** Every generated block's text, by name. */
export async function generatedBlocks(root: string): Promise<Map<string, string>> {
  return new Map([
    ['channels', channelsBlock(root)],
    ['entries', entriesBlock(root)],
    ['schema-steps', await schemaStepsBlock(root)],
    ['errors', errorsBlock(root)],
    ['benches', `${ticked(benchNames(root))}.`],
  ]);
}

const BLOCK = /<!-- docs:gen ([\w-]+)[^>]*-->\n([\s\S]*?)<!-- \/docs:gen \1 -->/g;

/** The blocks a document holds: name and current text (without the markers). */
export function blocksIn(doc: string): { name: string; text: string }[] {
  return [...doc.matchAll(BLOCK)].map((m) => ({ name: m[1]!, text: m[2]!.replace(/\n$/, '') }));
}

/** `doc` with every block's text replaced by the generated one (an unknown block name is an error). */
export function fillBlocks(doc: string, blocks: Map<string, string>, file = 'the document'): string {
  return doc.replace(BLOCK, (whole, name: string, _text: string) => {
    const text = blocks.get(name);
    if (text === undefined) throw new Error(`${file} has a block "${name}" that ${DOCS_GEN_COMMAND} does not generate (known: ${[...blocks.keys()].join(', ')}).`);
    const open = whole.slice(0, whole.indexOf('-->') + 3);
    return `${open}\n${text}\n<!-- /docs:gen ${name} -->`;
  });
}

async function main(): Promise<void> {
  const root = path.resolve(import.meta.dirname, '..');
  const blocks = await generatedBlocks(root);
  for (const file of docFiles(root)) {
    const before = read(root, file);
    const after = fillBlocks(before, blocks, file);
    if (after !== before) {
      writeFileSync(path.join(root, file), after);
      console.log(`rewrote the generated blocks of ${file}`);
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
