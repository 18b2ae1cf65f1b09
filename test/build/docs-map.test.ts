/**
 * Every list or count the docs state is generated from the code (the `docs:gen` blocks) or checked
 * against it here; links between the docs resolve. The layer table has its own check
 * (test/build/lint-layers.test.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { channelNames } from '../../preload/contract/index.js';
import { policySchema } from '../../main/policy/schema.js';
import { DEFAULT_KEYS, VOUCHERS } from '../../simulator/catalog.js';
import { blocksIn, docFiles, DOCS_GEN_COMMAND, fillBlocks, generatedBlocks } from '../../scripts/docs-gen.js';
import { MAX_BANDS, MAX_BLOCK_BYTES, MAX_BLOCKS, MAX_GDAL_METADATA_CHARS, MAX_IMAGE_SAMPLES, MAX_IMAGES } from '../../main/geotiff/limits.js';
import { HEAD_BYTES, READ_WHOLE_BYTES } from '../../main/geotiff/tiff-file.js';
import { KEEP_CONTENT_BYTES } from '../../main/downloads/stream-to-file.js';
import { JSON_LIMITS, MAX_AREA_TEXT, MAX_SELECTION } from '../../preload/contract/bounds.js';
import { WATCH_LATEST_DATES } from '../../preload/contract/watches.js';
import { LEDGER_KEEP_DAYS } from '../../main/spend/store.js';
import { DEFAULT_CONFIRM_ABOVE_EUR } from '../../main/spend/guard.js';
import { PROBE_MS } from '../../main/team/outbox.js';
import { SERVICE_TEXT_MAX } from '../../main/shared/untrusted-text.js';
import { MAX_FAILURES, RETRY_BASE_MS } from '../../main/watches/run-machine.js';
import { MIN_PAIRS } from '../bench/method.js';
import { SHORTCUTS } from '../../renderer/src/platform/lib/shortcuts.js';
import { CANCEL_GRACE_MS, OVERVIEW_THREADS } from '../../main/library/overview-thread.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (rel: string): string => readFileSync(path.join(root, rel), 'utf8');
const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** `doc` without its fenced code blocks (whose `#` lines are no headings). */
const prose = (doc: string): string => doc.replace(/^```[\s\S]*?^```$/gm, '');

/** The prose of the section under `heading`, to the next heading of the same or a higher level. */
function section(doc: string, heading: string): string {
  const level = heading.match(/^#+/)![0].length;
  const lines = prose(doc).split('\n');
  const start = lines.findIndex((l) => l === heading);
  expect(start, `the heading "${heading}"`).toBeGreaterThan(-1);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => /^#+ /.test(l) && l.match(/^#+/)![0].length <= level);
  return rest.slice(0, end === -1 ? undefined : end).join('\n');
}

/** The rows of the first table in `text` whose header line starts with `header`, as cells. */
function tableRows(text: string, header: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(header));
  expect(start, `a table headed "${header}"`).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split(' | ').map((c) => c.trim()));
  }
  return rows;
}

describe('the generated blocks', () => {
  it(`are current in every doc (else: ${DOCS_GEN_COMMAND}) and each is somewhere`, async () => {
    const blocks = await generatedBlocks(root);
    const seen = new Set<string>();
    for (const file of docFiles(root)) {
      const doc = read(file);
      for (const block of blocksIn(doc)) {
        seen.add(block.name);
        expect(block.text, `${file}'s "${block.name}" block is stale: run ${DOCS_GEN_COMMAND}`).toBe(blocks.get(block.name));
      }
      expect(() => fillBlocks(doc, blocks, file)).not.toThrow();
    }
    expect([...seen].sort(), `every generated block appears in a doc (its markers: <!-- docs:gen <name> --> … <!-- /docs:gen <name> -->)`).toEqual([...blocks.keys()].sort());
  });

  it('fill a block from the code and refuse one the generator does not know', () => {
    const blocks = new Map([['n', 'new text']]);
    expect(fillBlocks('a\n<!-- docs:gen n -->\nold\n<!-- /docs:gen n -->\nb', blocks)).toBe('a\n<!-- docs:gen n -->\nnew text\n<!-- /docs:gen n -->\nb');
    expect(() => fillBlocks('<!-- docs:gen m -->\n<!-- /docs:gen m -->', blocks, 'x.md')).toThrow(/x\.md has a block "m" that npm run docs:gen does not generate/);
  });
});

describe("ARCHITECTURE.md's feature table", () => {
  const doc = read('docs/ARCHITECTURE.md');
  const rows = tableRows(section(doc, '## Features'), '| feature | main | slice | channels | renderer |');
  const served = rows.filter(([, main]) => main!.startsWith('`'));

  it('serves every channel of the contract from exactly one row, and every pattern names a channel', () => {
    const owners = new Map<string, string[]>();
    for (const [feature, , , channels] of served) {
      for (const pattern of ticked(channels!)) {
        const matched = channelNames.filter((c) => (pattern.endsWith(':*') ? c.startsWith(pattern.slice(0, -1)) : c === pattern));
        expect(matched, `${feature}'s channel pattern ${pattern}`).not.toEqual([]);
        for (const c of matched) owners.set(c, [...(owners.get(c) ?? []), feature!]);
      }
    }
    const wrong = channelNames.filter((c) => owners.get(c)?.length !== 1).map((c) => `${c}: ${owners.get(c)?.join(', ') ?? 'no row'}`);
    expect(wrong, 'channels served by no row or by several').toEqual([]);
  });

  it("names folders that exist and slices their folder exports, as many as the composition root joins", () => {
    for (const [feature, main, slice, , renderer] of rows) {
      for (const folder of [...ticked(main!), ...ticked(renderer!)]) expect(existsSync(path.join(root, folder)), `${feature}: ${folder}`).toBe(true);
      if (!main!.startsWith('`')) continue;
      const folder = ticked(main!)[0]!;
      const id = ticked(slice!)[0]!.match(/^\w+/)![0];
      const sources = readdirSync(path.join(root, folder)).filter((f) => f.endsWith('.ts')).map((f) => read(`${folder}/${f}`)).join('\n');
      expect(sources, `${folder} exports ${id}`).toMatch(new RegExp(`export (async )?(function|const|class) ${id}\\b`));
    }
    const app = read('main/app/app.ts');
    const joined = app.slice(app.indexOf('joinSlices(\n'), app.indexOf('\n  );', app.indexOf('joinSlices(\n')));
    expect(joined.split('\n').filter((l) => /^ {4}\w/.test(l)), 'the slices main/app/app.ts joins').toHaveLength(served.length);
    const features = readdirSync(path.join(root, 'renderer/src/features'));
    expect(features.filter((f) => !rows.some(([, , , , r]) => ticked(r!).includes(`renderer/src/features/${f}`))), 'renderer features the table leaves out').toEqual([]);
  });
});

describe("the IT guide's policy keys", () => {
  it('are the policy schema\'s keys, each once', () => {
    const doc = read('docs/it-guide.md');
    const documented = [
      ...tableRows(section(doc, '## Policy file'), '| Key | Meaning |'),
      ...tableRows(section(doc, '## Team library: setting it up'), '| Key | Meaning |'),
    ].map(([key]) => ticked(key!)[0]!);
    const shape = policySchema.shape as Record<string, { unwrap?: () => { shape?: Record<string, unknown> } }>;
    const inCode: string[] = [];
    for (const [key, schema] of Object.entries(shape)) {
      const nested = documented.filter((d) => d.startsWith(`${key}.`));
      if (nested.length === 0) inCode.push(key);
      else inCode.push(...Object.keys(schema.unwrap!().shape!).map((k) => `${key}.${k}`));
    }
    expect([...documented].sort()).toEqual([...new Set(documented)].sort());
    expect([...documented].sort()).toEqual(inCode.sort());
  });
});

describe("the developer's guide on the simulator", () => {
  const doc = read('docs/developer-guide.md');
  const sim = section(doc, '## The simulator');

  it("lists npm run simulator's options", () => {
    const cli = read('simulator/cli.ts');
    const block = cli.slice(cli.indexOf('options: {'), cli.indexOf('\n    },', cli.indexOf('options: {')));
    const inCode = [...block.matchAll(/^ {6}'?([\w-]+)'?: \{/gm)].map((m) => `--${m[1]}`).filter((o) => o !== '--help');
    const documented = tableRows(sim, '| Option | Meaning |').map(([o]) => ticked(o!)[0]!.split(' ')[0]!);
    expect(documented.sort()).toEqual(inCode.sort());
  });

  it("lists the demo keys with their limits, and the vouchers with their values", () => {
    const rows = tableRows(section(sim, '### Demo keys'), '| Key | Account |');
    expect(rows.map(([k]) => ticked(k!)[0]).sort()).toEqual(Object.keys(DEFAULT_KEYS).sort());
    for (const [k, account] of rows) {
      const key = DEFAULT_KEYS[ticked(k!)[0]!]!;
      expect(account, k).toContain(`${key.plan} plan`);
      if (key.revoked) continue;
      expect(account, k).toContain(`MaxConcurrentConnections ${key.maxConcurrentConnections}, MaxCompositeAreaKm2 ${key.maxCompositeAreaKm2}, MaxTotalBands ${key.maxTotalBands}`);
      if (key.startingBalance > 0) expect(account, k).toContain(`${key.startingBalance.toLocaleString('en')} EUR opening balance`);
    }
    const vouchers = [...section(sim, '### Demo keys').matchAll(/`(SWATH-[A-Z0-9-]+)` \((\d+) EUR\)/g)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(vouchers)).toEqual(VOUCHERS);
  });

  it("and the analyst's guide states the demo service's account as the simulator makes it", () => {
    const demo = section(read('docs/analyst-guide.md'), '## The demo service');
    const key = DEFAULT_KEYS['demo-key']!;
    expect(demo).toContain(`${key.plan} plan`);
    expect(demo).toContain(`(MaxConcurrentConnections ${key.maxConcurrentConnections}, MaxCompositeAreaKm2 ${key.maxCompositeAreaKm2}, MaxTotalBands ${key.maxTotalBands}, a ${key.startingBalance.toLocaleString('en')} EUR opening`);
  });
});

describe('the test parts', () => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const config = read('vitest.config.ts');
  const projects = [...config.matchAll(/name: '([\w-]+)'/g)].map((m) => m[1]!);

  it("are the vitest projects: each README row's command runs the projects the row names", () => {
    expect(scripts.test).toBe('vitest run');
    expect(read('README.md')).toContain('```sh\nnpm test\n```');
    for (const file of ['README.md', 'docs/developer-guide.md']) {
      const rows = tableRows(section(read(file), '## Tests'), '| part | command | what |');
      expect(rows.map(([part]) => part), file).toEqual(['unit', 'integration', 'e2e']);
      const named: string[] = [];
      for (const [part, command, what] of rows) {
        const script = scripts[ticked(command!)[0]!.replace('npm run ', '')];
        expect(script, `${file}: ${part}'s command`).toBeDefined();
        const runs = [...script!.matchAll(/--project ([\w-]+)/g)].map((m) => m[1]!);
        const stated = [...what!.matchAll(/projects? `([\w-]+)`(?: and `([\w-]+)`)?/g)].flatMap((m) => [m[1]!, m[2]].filter((x): x is string => !!x));
        expect(stated.sort(), `${file}: the projects of ${part}`).toEqual(runs.sort());
        named.push(...stated);
      }
      expect(named.sort(), `${file}: every vitest project in one part`).toEqual([...projects].sort());
    }
  });

  it('every `npm run <script>` a doc names is a script of package.json', () => {
    const missing: string[] = [];
    for (const file of docFiles(root)) {
      for (const m of read(file).matchAll(/npm run ([\w:-]+)/g)) if (!(m[1]! in scripts)) missing.push(`${file}: npm run ${m[1]}`);
    }
    expect(missing).toEqual([]);
  });
});

describe("the analyst's guide on the keyboard", () => {
  it('names every Go to shortcut of the catalogue, and no other Alt+letter', () => {
    const guide = section(read('docs/analyst-guide.md'), '## Keyboard and accessibility');
    const goTo = guide.slice(guide.indexOf('**Go to (Alt+letter).**'), guide.indexOf('\n- **', guide.indexOf('**Go to (Alt+letter).**')));
    const documented = new Set([...goTo.matchAll(/\bAlt\+([A-Z])\b/g)].map((m) => `Alt+${m[1]}`));
    // The platform's catalogue and the shortcuts each feature contributes (its contribution.ts).
    const contributed = readdirSync(path.join(root, 'renderer/src/features'))
      .map((f) => path.join(root, 'renderer/src/features', f, 'contribution.ts'))
      .filter((f) => existsSync(f))
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/keys: '([^']+)',\s*group: 'Go to'/g)].map((m) => m[1]!));
    const inCode = [...Object.values(SHORTCUTS).filter((s) => s.group === 'Go to').map((s) => s.keys), ...contributed];
    expect([...documented].sort()).toEqual([...inCode].sort());
  });
});

describe("the README's prerequisites", () => {
  it('name the Node versions of package.json\'s engines, .node-version and (in every doc) the Electron major the app builds on', () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; devDependencies: Record<string, string> };
    const readme = read('README.md').replace(/\s+/g, ' ');
    const [older, newer] = pkg.engines.node.split('||').map((r) => r.trim().replace(/^[\^>=]+/, ''));
    expect(readme).toContain(`Node.js ${newer!.replace(/\.0$/, '')}+`);
    expect(readme).toContain(`or ${older}+ for development`);
    expect(readme).toContain(`\`.node-version\` says ${read('.node-version').trim()}`);
    const electron = pkg.devDependencies.electron!.replace(/^\^/, '').split('.')[0];
    expect([...readme.matchAll(/Electron (\d+)/g)].map((m) => m[1])).toEqual(expect.arrayContaining([electron]));
    const everyDoc = docFiles(root).map(read).join('\n');
    expect([...everyDoc.matchAll(/Electron (\d+)/g)].filter((m) => m[1] !== electron).map((m) => m[0]), 'another Electron major named in a doc').toEqual([]);
  });
});

describe('the environment variables', () => {
  it('the code reads are each documented, and each documented one is read', () => {
    const code = ['main', 'scripts', 'simulator', 'common', 'preload', 'test/support', 'test/bench']
      .flatMap((dir) => readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && /\.(ts|js)$/.test(e.name)).map((e) => readFileSync(path.join(e.parentPath, e.name), 'utf8')))
      .concat(read('electron.vite.config.ts'), read('vitest.config.ts'), read('.ci/run')).join('\n');
    const names = (text: string): Set<string> => new Set([...text.matchAll(/(?<![\w])SWATH_[A-Z0-9]+(?:_[A-Z0-9]+)*(?![\w])/g)].map((m) => m[0]));
    // Names the build defines for the bundle (electron.vite.config.ts `define`) are constants, not variables anyone sets.
    const defined = new Set([...read('electron.vite.config.ts').matchAll(/'process\.env\.(SWATH_[A-Z0-9_]+)':/g)].map((m) => m[1]!));
    const docs = docFiles(root).map(read).join('\n');
    const prefixes = [...docs.matchAll(/`(SWATH_[A-Z0-9_]*_)\*`/g)].map((m) => m[1]!);
    const read_ = [...names(code)].filter((n) => !defined.has(n));
    expect(read_.filter((n) => !names(docs).has(n) && !prefixes.some((p) => n.startsWith(p))), 'read by the code, documented nowhere').toEqual([]);
    expect([...names(docs)].filter((n) => !read_.includes(n)), 'documented, read by no code').toEqual([]);
  });
});

/** `n` with a space between thousands, as the docs write big limits (2 000 000). */
const spaced = (n: number): string => n.toLocaleString('en').replace(/,/g, ' ');

describe('the limits the docs state', () => {
  // Each: a doc and the words it states a limit in, built from the code's constant.
  const stated: [string, string][] = [
    ['docs/it-guide.md', `at most ${MAX_BANDS} bands (SamplesPerPixel), ${MAX_GDAL_METADATA_CHARS / 1024} Ki characters of GDAL_METADATA, 2^${Math.log2(MAX_IMAGE_SAMPLES)} samples (width x height x bands), ${MAX_BLOCK_BYTES / 2 ** 20} MiB per tile or strip, ${MAX_IMAGES} images`],
    ['docs/it-guide.md', `into more than ${MAX_BLOCKS / 2 ** 20} Mi blocks`],
    ['docs/it-guide.md', `an area's WKT ${spaced(MAX_AREA_TEXT)} characters, a selection ${spaced(MAX_SELECTION)} rasters, a service body ${JSON_LIMITS.depth} levels, ${spaced(JSON_LIMITS.values)} values and ${spaced(JSON_LIMITS.chars)} characters`],
    ['docs/it-guide.md', `cut at ${SERVICE_TEXT_MAX} characters`],
    ['docs/it-guide.md', `(EUR, default ${DEFAULT_CONFIRM_ABOVE_EUR})`],
    ['docs/analyst-guide.md', `above ${DEFAULT_CONFIRM_ABOVE_EUR} EUR (policy \`confirmSpendAboveEur\`)`],
    ['docs/ARCHITECTURE.md', `\`DEFAULT_CONFIRM_ABOVE_EUR\` ${DEFAULT_CONFIRM_ABOVE_EUR}`],
    ['docs/analyst-guide.md', `kept ${LEDGER_KEEP_DAYS} days`],
    ['docs/ARCHITECTURE.md', `older than ${LEDGER_KEEP_DAYS} days (\`LEDGER_KEEP_DAYS\`)`],
    ['docs/glossary.md', `kept ${LEDGER_KEEP_DAYS} days`],
    ['docs/analyst-guide.md', `shows its latest ${WATCH_LATEST_DATES}`],
    ['docs/ARCHITECTURE.md', `its \`latest\` ${WATCH_LATEST_DATES} dates, \`WATCH_LATEST_DATES\``],
    ['docs/ARCHITECTURE.md', `A body of at most ${KEEP_CONTENT_BYTES / 1024} KiB (\`KEEP_CONTENT_BYTES\`)`],
    ['docs/ARCHITECTURE.md', `a file up to ${READ_WHOLE_BYTES / 1024} KiB, \`READ_WHOLE_BYTES\``],
    ['docs/ARCHITECTURE.md', `its first ${HEAD_BYTES / 1024} KiB, \`HEAD_BYTES\``],
    ['docs/ARCHITECTURE.md', `at most \`PROBE_MS\`, ${PROBE_MS / 1000} s`],
    ['docs/ARCHITECTURE.md', `run on a pool of ${['one', 'two', 'three', 'four'][OVERVIEW_THREADS - 1]} long-lived \`worker_threads\``],
    ['docs/ARCHITECTURE.md', `a thread that does not stop in ${CANCEL_GRACE_MS / 1000} s is terminated`],
    ['docs/it-guide.md', `terminates a thread that does not stop within ${CANCEL_GRACE_MS / 1000} s`],
    ['docs/developer-guide.md', `comes from at least ${MIN_PAIRS} interleaved pairs`],
    ['docs/analyst-guide.md', `A transient failure is retried with backoff (${[0, 1, 2].map((i) => (RETRY_BASE_MS * 4 ** i) / 60_000).join(', ')} min…); after ${MAX_FAILURES} in a row`],
  ];
  it.each(stated)('%s states: %s', (file, words) => {
    expect(read(file).replace(/\s+/g, ' ')).toContain(words);
  });
});

describe("the developer's guide's layout", () => {
  it('lists the top-level folders of the repository', () => {
    const rows = tableRows(section(read('docs/developer-guide.md'), '## Layout'), '| folder | what |');
    const documented = rows.map(([f]) => ticked(f!)[0]!.replace(/\/$/, ''));
    // Folders git ignores (build output, installed packages, what tests write while this one runs) are not the repository's.
    const ignored = read('.gitignore').split('\n').filter((l) => /^[\w.-]+\/$/.test(l.trim())).map((l) => l.trim().slice(0, -1));
    const onDisk = readdirSync(root).filter((f) => !f.startsWith('.') && !ignored.includes(f) && statSync(path.join(root, f)).isDirectory());
    expect(documented.sort()).toEqual(onDisk.sort());
  });
});

describe('the files the docs name', () => {
  it('exist: every repository path in backticks, and every renderer path written from renderer/src', () => {
    const missing: string[] = [];
    const exists = (p: string): boolean => existsSync(path.join(root, p)) || existsSync(path.join(root, `${p}.ts`)) || existsSync(path.join(root, `${p}.test.ts`));
    const features = readdirSync(path.join(root, 'renderer/src/features'));
    for (const file of docFiles(root)) {
      for (const m of prose(read(file)).matchAll(/`((main|renderer|preload|common|simulator|scripts|test|build|docs|platform|features)\/[^`\s]*)`/g)) {
        const named = m[1]!.replace(/\/$/, '').split(':')[0]!;
        if (/[<*…{]/.test(named)) continue; // a pattern (`main/<feature>/`), not a file
        const found = ['platform', 'features'].includes(m[2]!) ? exists(`renderer/src/${named}`) : exists(named);
        if (!found) missing.push(`${file}: ${named}`);
      }
      for (const m of prose(read(file)).matchAll(/`((?:views|model|stores)\/[^`\s]+)`/g)) {
        if (!features.some((f) => exists(`renderer/src/features/${f}/${m[1]}`))) missing.push(`${file}: ${m[1]} (in no renderer feature)`);
      }
    }
    expect(missing).toEqual([]);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string => heading.toLowerCase().replace(/`/g, '').replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');

describe('links between the docs', () => {
  it('resolve to a file and, with a #, to one of its headings', () => {
    const broken: string[] = [];
    for (const file of docFiles(root)) {
      const text = prose(read(file));
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue;
        const [target, anchor] = link.split('#');
        const resolved = target ? path.join(path.dirname(file), target) : file;
        if (!existsSync(path.join(root, resolved))) {
          broken.push(`${file}: ${link} (no ${resolved})`);
          continue;
        }
        if (anchor === undefined) continue;
        const headings = prose(read(resolved)).split('\n').filter((l) => /^#+ /.test(l)).map((l) => slug(l.replace(/^#+ /, '')));
        if (!headings.includes(anchor)) broken.push(`${file}: ${link} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
