import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The licences of the production dependencies that ship with Swath: the
 * package.json "dependencies" (and their own dependencies, recursively, as
 * Node would resolve them from node_modules), never devDependencies.
 * electron.vite.config.ts emits the result as out/main/licenses.json at build
 * time; `tsx scripts/licenses.ts [out.json]` prints or writes it by hand.
 */

/** One shipped package. */
export interface LicenseEntry {
  name: string;
  version: string;
  license: string;
}

interface Manifest {
  name?: string;
  version?: string;
  license?: string | { type?: string };
  licenses?: Array<{ type?: string }> | { type?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

function readManifest(dir: string): Manifest | null {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
  } catch {
    return null;
  }
}

/** The SPDX expression of a manifest, from "license", the old "licenses" array, or UNKNOWN. */
export function licenseOf(manifest: Manifest): string {
  const l = manifest.license;
  if (typeof l === 'string' && l.trim()) return l.trim();
  if (l && typeof l === 'object' && l.type) return l.type;
  const list = Array.isArray(manifest.licenses) ? manifest.licenses : manifest.licenses ? [manifest.licenses] : [];
  const types = list.map((x) => x.type).filter(Boolean);
  return types.length ? (types.length > 1 ? `(${types.join(' OR ')})` : types[0]!) : 'UNKNOWN';
}

/** Finds `name` the way Node does from a package folder: its own node_modules, then each parent's. */
function resolvePackage(from: string, name: string, root: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.resolve(dir) === path.resolve(root)) return null;
    // Intermediate folders (node_modules, @scope) have no node_modules of their own; checking them is harmless.
    dir = path.dirname(dir);
  }
}

/** Every production dependency reachable from the app's package.json, sorted by name. */
export function collectLicenses(root: string): LicenseEntry[] {
  const app = readManifest(root);
  if (!app) throw new Error(`No package.json in ${root}`);
  const found = new Map<string, LicenseEntry>();
  const seenDirs = new Set<string>();
  const visit = (fromDir: string, manifest: Manifest): void => {
    const required = Object.keys(manifest.dependencies ?? {});
    const optional = Object.keys(manifest.optionalDependencies ?? {});
    for (const name of [...required, ...optional]) {
      const dir = resolvePackage(fromDir, name, root);
      // A missing optional dependency (another platform's binary) is fine.
      if (!dir || seenDirs.has(dir)) continue;
      seenDirs.add(dir);
      const dep = readManifest(dir);
      if (!dep) continue;
      const entry = { name: dep.name ?? name, version: dep.version ?? '0.0.0', license: licenseOf(dep) };
      found.set(`${entry.name}@${entry.version}`, entry);
      visit(dir, dep);
    }
  };
  visit(root, app);
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

// `tsx scripts/licenses.ts [file]`
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const json = JSON.stringify(collectLicenses(process.cwd()), null, 2);
  if (process.argv[2]) writeFileSync(process.argv[2], json);
  else console.log(json);
}
