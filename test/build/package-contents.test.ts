import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listPackage } from '@electron/asar';
import { build, Platform, type Configuration } from 'electron-builder';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectLicenses } from '../../scripts/licenses';

/**
 * Runs electron-builder for real (Linux, --dir) on the built app, offline: the
 * Electron download is replaced by a stand-in executable (electronDist), and the
 * fuses step is left out because a stand-in has no fuse sentinel (the fuses
 * themselves are checked in electron-builder.test.ts). What is checked is what
 * ships: app.asar's contents and what is unpacked beside it.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = join(tmpdir(), `swath-package-${process.pid}`);
const output = join(work, 'dist');
let files: string[] = [];
let resources = '';

beforeAll(async () => {
  // The package takes out/ from the project folder, as after `npm run build`: the run's one build
  // (test/support/app-build.ts) is put there.
  const built = process.env.SWATH_E2E_BUILD;
  if (!built || !existsSync(join(built, 'main/index.js'))) throw new Error('SWATH_E2E_BUILD names no build: run this file in the integration part (vitest --project integration)');
  rmSync(join(root, 'out'), { recursive: true, force: true });
  cpSync(built, join(root, 'out'), { recursive: true });
  const electronDist = join(work, 'electron-dist');
  mkdirSync(electronDist, { recursive: true });
  writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as Configuration;
  const electronVersion = (JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')) as { version: string }).version;
  await build({
    projectDir: root,
    targets: Platform.LINUX.createTarget('dir'),
    publish: 'never',
    config: { ...config, electronFuses: null, electronDist, electronVersion, directories: { ...config.directories, output } },
  });
  resources = join(output, 'linux-unpacked', 'resources');
  files = listPackage(join(resources, 'app.asar'), { isPack: false });
}, 400_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packaged app (electron-builder --dir, offline)', () => {
  it('has out/ and package.json in app.asar', () => {
    for (const f of ['/package.json', '/out/main/index.js', '/out/main/licenses.json', '/out/preload/index.cjs', '/out/renderer/index.html']) expect(files, f).toContain(f);
    expect(files.some((f) => /^\/out\/main\/chunks\/512x512-.*\.png$/.test(f))).toBe(true);
    const top = new Set(files.map((f) => f.split('/')[1]));
    expect([...top].sort()).toEqual(['node_modules', 'out', 'package.json']);
  });

  it('has the production node_modules and none of the development ones', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies)) expect(files, dep).toContain(`/node_modules/${dep}/package.json`);
    // A development tool may also be a dependency of a production package (yaml is); those ship, the rest must not.
    const production = new Set(collectLicenses(root).map((l) => l.name));
    const devOnly = Object.keys(pkg.devDependencies).filter((dev) => !production.has(dev));
    expect(devOnly).toEqual(expect.arrayContaining(['electron', 'electron-builder', 'vitest', 'typescript', '@resvg/resvg-js', 'png2icons']));
    for (const dev of devOnly) expect(files.some((f) => f.startsWith(`/node_modules/${dev}/`)), dev).toBe(false);
  });

  it('has every package the bundles import, and neither build-time inputs nor the Turf umbrella', () => {
    const bundles = readdirSync(join(root, 'out/main'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    const imported = new Set<string>();
    for (const bundle of bundles) {
      const text = readFileSync(join(root, 'out/main', bundle), 'utf8');
      // A keyword, not the end of a string or a name ("from", "to" in a list of field names is not an import).
      for (const [, spec] of text.matchAll(/(?<![\w$"'.])(?:from\s*|import\s*\(\s*|require\s*\(\s*)["']([^"'.][^"']*)["']/g)) {
        const parts = spec!.split('/');
        const name = spec!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
        if (!name.startsWith('node:') && name !== 'electron' && !builtinModules.includes(name)) imported.add(name);
      }
    }
    expect(imported.size).toBeGreaterThan(5);
    for (const name of imported) expect(files, name).toContain(`/node_modules/${name}/package.json`);
    for (const gone of ['p-retry', 'epsg-index', 'world-atlas', '@turf/turf']) expect(files, gone).not.toContain(`/node_modules/${gone}/package.json`);
  });

  it('unpacks keytar’s native module next to the archive', () => {
    expect(existsSync(join(resources, 'app.asar.unpacked/node_modules/keytar/build/Release/keytar.node'))).toBe(true);
    expect(existsSync(join(resources, 'app.asar.unpacked/node_modules/keytar/prebuilds/linux-x64/keytar.node'))).toBe(true);
    // Inside the archive the .node is only a placeholder entry pointing outside.
    expect(files.filter((f) => f.endsWith('.node')).length).toBeGreaterThan(0);
  });

  it('has no sources, tests, maps or build tooling', () => {
    const ours = files.filter((f) => f !== '/node_modules' && !f.startsWith('/node_modules/'));
    for (const f of ours) expect(f, f).toMatch(/^\/(out(\/|$)|package\.json$)/);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => /\.(ts|mts|cts|tsx|vue)$/.test(f))).toEqual([]);
    for (const dir of ['/main/', '/preload/', '/renderer/src/', '/test/', '/scripts/', '/build/']) expect(files.some((f) => f.startsWith(dir)), dir).toBe(false);
  });
});
