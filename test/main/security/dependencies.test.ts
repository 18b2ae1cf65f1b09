import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What ships is what runs. Every production dependency is imported by the app's
// own code (main, preload, renderer, common, the simulator); build-time inputs and umbrella packages do not ship.
// test/build/package-contents.test.ts checks the packaged app itself.

const root = fileURLToPath(new URL('../../../', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|vue)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** The packages the app's own code imports (static and dynamic imports), by package name. */
function importedPackages(dirs: string[]): Set<string> {
  const out = new Set<string>();
  const re = /(?:from\s+|import\s*\(\s*|import\s+)['"]([^'".][^'"]*)['"]/g;
  for (const dir of dirs) {
    for (const file of sources(dir)) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(re)) {
        const parts = spec!.split('/');
        out.add(spec!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
      }
    }
  }
  return out;
}

describe('dependencies', () => {
  const app = importedPackages(['main', 'preload', 'renderer/src', 'common', 'simulator']);

  it('every production dependency is imported by the app (p-retry was not, and shipped)', () => {
    const unused = Object.keys(pkg.dependencies).filter((dep) => !app.has(dep));
    expect(unused).toEqual([]);
  });

  it('build-time inputs are development dependencies: nothing the app runs imports them', () => {
    for (const input of ['epsg-index', 'world-atlas']) {
      expect(pkg.dependencies[input], input).toBeUndefined();
      expect(pkg.devDependencies[input], input).toBeDefined();
      expect(app.has(input), input).toBe(false);
    }
  });

  it('Turf comes as the modules the app calls, not the umbrella package', () => {
    expect(pkg.dependencies['@turf/turf']).toBeUndefined();
    expect(app.has('@turf/turf')).toBe(false);
    const turf = Object.keys(pkg.dependencies).filter((d) => d.startsWith('@turf/'));
    expect(turf.length).toBeGreaterThan(0);
    expect(turf.length).toBeLessThanOrEqual(12);
  });
});
