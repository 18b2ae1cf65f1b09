import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { matchesGlob } from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
interface PlatformConfig {
  target?: unknown;
  category?: string;
  maintainer?: string;
}
interface BuilderConfig {
  appId?: string;
  productName?: string;
  directories?: { output?: string };
  files: string[];
  asar?: boolean;
  asarUnpack: string | string[];
  npmRebuild?: boolean;
  electronFuses?: Record<string, boolean>;
  linux: PlatformConfig;
  win: PlatformConfig;
  mac: PlatformConfig;
}
const config = parse(readFileSync(new URL('electron-builder.yml', root), 'utf8')) as BuilderConfig;
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { main: string; name: string };

function targets(os: 'linux' | 'win' | 'mac'): string[] {
  const target = config[os]?.target;
  const list = Array.isArray(target) ? target : [target];
  return list.map((t) => (typeof t === 'string' ? t : (t as { target: string }).target));
}

/** electron-builder's `files` semantics: the last matching pattern decides; `!` excludes. */
function shipped(path: string): boolean {
  let included = false;
  for (const pattern of config.files) {
    const negated = pattern.startsWith('!');
    const glob = negated ? pattern.slice(1) : pattern;
    if (matchesGlob(path, glob)) included = !negated;
  }
  return included;
}

describe('electron-builder.yml', () => {
  it('is valid against electron-builder’s own configuration schema', () => {
    const require = createRequire(import.meta.url);
    const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as object;
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    expect(validate(config), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('identifies the app', () => {
    expect(config.appId).toBe('app.swath.desktop');
    expect(config.productName).toBe('Swath');
    expect(config.directories?.output).toBe('dist');
  });

  it('builds AppImage and deb on Linux, NSIS on Windows, DMG (and the zip updates use) on macOS', () => {
    expect(targets('linux').sort()).toEqual(['AppImage', 'deb']);
    expect(targets('win')).toEqual(['nsis']);
    expect(targets('mac')).toEqual(['dmg', 'zip']);
    expect(config.linux.category).toMatch(/Science/);
    expect(config.linux.category).toMatch(/Graphics/);
    expect(config.linux.maintainer).toMatch(/<[^@\s]+@[^@\s]+>/);
    expect(config.mac.category).toBe('public.app-category.productivity');
  });

  it('does not rebuild native modules and unpacks keytar’s .node from the asar', () => {
    expect(config.npmRebuild).toBe(false);
    expect(config.asar).not.toBe(false);
    const unpack = ([] as string[]).concat(config.asarUnpack);
    const covered = (path: string): boolean => unpack.some((glob) => matchesGlob(path, glob));
    expect(covered('node_modules/keytar/build/Release/keytar.node')).toBe(true);
    expect(covered('node_modules/keytar/prebuilds/linux-x64/keytar.node')).toBe(true);
    expect(covered('node_modules/keytar/lib/keytar.js')).toBe(false);
  });

  it('fits managed fleets: deb needs libsecret, NSIS offers per-machine installs, macOS is hardened, update files are written', () => {
    const full = config as unknown as {
      deb: { depends: string[] }; nsis: { oneClick: boolean; perMachine: boolean; allowElevation: boolean };
      mac: { hardenedRuntime: boolean; notarize?: unknown }; publish: { provider: string }; generateUpdatesFilesForAllChannels: boolean;
    };
    expect(full.deb.depends).toContain('libsecret-1-0');
    // Electron's own runtime libraries stay listed: setting depends replaces electron-builder's defaults.
    expect(full.deb.depends).toEqual(expect.arrayContaining(['libgtk-3-0', 'libnss3', 'libxss1', 'libxtst6', 'libatspi2.0-0']));
    // oneClick false + perMachine false = the installer asks, and /S /allusers installs per machine.
    expect(full.nsis).toMatchObject({ oneClick: false, perMachine: false, allowElevation: true });
    expect(full.mac.hardenedRuntime).toBe(true);
    // Unset = notarize when the APPLE_* variables are present, skip (not fail) otherwise.
    expect(full.mac.notarize).toBeUndefined();
    expect(full.publish.provider).toBe('generic');
    expect(full.generateUpdatesFilesForAllChannels).toBe(true);
  });

  it('flips the security fuses', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      // The renderer is served from app://swath/; file:// keeps no extra privileges.
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('ships out/ and package.json, including the main entry, and nothing else of the source tree', () => {
    const files = config.files;
    expect(files).toContain('out/**');
    expect(files).toContain('package.json');
    // Every positive pattern is either the build output or the manifest.
    for (const pattern of files.filter((p) => !p.startsWith('!'))) {
      expect(pattern === 'package.json' || pattern.startsWith('out/'), pattern).toBe(true);
    }
    expect(pkg.main).toBe('out/main/index.js');
    for (const path of [pkg.main, 'out/preload/index.cjs', 'out/renderer/index.html', 'out/renderer/assets/index-abc.js', 'package.json']) {
      expect(shipped(path), path).toBe(true);
    }
    for (const path of [
      'main/index.ts',
      'simulator/index.ts',
      'preload/index.ts',
      'renderer/src/shell/App.vue',
      'test/build/electron-builder.test.ts',
      'tsconfig.node.json',
      'electron.vite.config.ts',
      'vitest.config.ts',
      'electron-builder.yml',
      'README.md',
      'build/icon.svg',
      'scripts/icons.ts',
      'out/main/index.js.map',
    ]) {
      expect(shipped(path), path).toBe(false);
    }
  });
});
