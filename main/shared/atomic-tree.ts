/**
 * The files module's atomic write for a folder of files (files.ts is the single-file one): the tree
 * is staged in a hidden sibling folder (the tree's part), each file written new and fsynced, then
 * the folder is renamed into place and the parent fsynced. The renames below are of that staged
 * folder and of the earlier tree it replaces.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, readFile, rename, rm, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AppError } from '../../common/errors.js';
import { throwIfAborted } from '../../common/abort.js';
import { readJsonFile, syncDirectory, writeNewFile } from './files.js';

/** One file of a tree, by its path relative to the tree's folder (forward slashes). */
export interface TreeFile {
  path: string;
  content: string;
}

/**
 * The manifest every tree export writes beside its files: which files it wrote, with their
 * size and sha256. A later export into the same folder replaces only those, and only while
 * they are unchanged; anything else there (an analyst's notes, rasters) makes it refuse.
 */
export const EXPORT_MANIFEST = 'swath-export.json';

/** Options of {@link writeTreeAtomic}. */
export interface TreeOptions {
  signal?: AbortSignal;
}

/** Largest manifest read whole (an earlier version's, pretty-printed); larger ones are read a line at a time. */
const MAX_WHOLE_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Largest manifest read at all: one line of ~150 bytes per file of an export. */
const MAX_MANIFEST_BYTES = 128 * 1024 * 1024;
/**
 * Entries looked at in an existing folder before it is refused as too big to be an earlier export:
 * a STAC export of N rasters holds 2N + 3 (a folder and a file per item, the catalog, the manifest).
 */
const MAX_EXISTING_ENTRIES = 600_000;
/** The manifest's first line as this version writes it: then one file per line, then `]}`. */
const MANIFEST_HEAD = '{"swath":"export-manifest","version":1,"files":[';
/** Entries named in a refusal. */
const NAMED_IN_REFUSAL = 5;

const manifestFileSchema = z.strictObject({
  path: z.string().min(1).max(1_000),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
const manifestSchema = z.strictObject({
  swath: z.literal('export-manifest'),
  version: z.literal(1),
  files: z.array(manifestFileSchema).max(MAX_EXISTING_ENTRIES),
});
type Manifest = z.infer<typeof manifestSchema>;
type ManifestFile = Manifest['files'][number];

/** A relative path as an export writes it: forward slashes, no empty, `.` or `..` segment, no drive or backslash. */
function isTreePath(p: string): boolean {
  if (p.includes('\\') || p.includes('\0') || p.startsWith('/') || /^[A-Za-z]:/.test(p)) return false;
  return p.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

const sha256 = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');

/** The manifest of `files` (its own file not included), valid JSON with one file per line. */
function* manifestLines(files: readonly ManifestFile[]): Generator<string> {
  yield `${MANIFEST_HEAD}\n`;
  for (let i = 0; i < files.length; i++) yield `${JSON.stringify(files[i])}${i < files.length - 1 ? ',' : ''}\n`;
  yield ']}\n';
}

/** Writes `content` (text, or its lines) to a new file of the staged tree, fsynced (files.ts `writeNewFile`). */
async function writeSynced(file: string, content: string | Iterable<string>): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeNewFile(file, content, 0o644);
}

/** A manifest's file list, checked: every path one an export may write, none twice. */
function checkedFiles(files: ManifestFile[]): ManifestFile[] | null {
  const seen = new Set<string>();
  for (const f of files) {
    if (!isTreePath(f.path) || f.path === EXPORT_MANIFEST || seen.has(f.path)) return null;
    seen.add(f.path);
  }
  return files;
}

/**
 * A manifest as this version writes it, read a line at a time (a big export's manifest is never
 * parsed as one document on main's thread); null when any line is not one of Swath's.
 */
async function readManifestLines(file: string): Promise<Manifest | null> {
  const handle = await open(file, 'r');
  const files: ManifestFile[] = [];
  let state: 'head' | 'files' | 'end' = 'head';
  try {
    for await (const line of handle.readLines({ encoding: 'utf8' })) {
      if (state === 'end') {
        if (line !== '') return null;
      } else if (state === 'head') {
        if (line !== MANIFEST_HEAD) return null;
        state = 'files';
      } else if (line === ']}') {
        state = 'end';
      } else {
        if (line.length > 2_000 || files.length >= MAX_EXISTING_ENTRIES) return null;
        const parsed = manifestFileSchema.safeParse(JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line));
        if (!parsed.success) return null;
        files.push(parsed.data);
      }
    }
  } finally {
    await handle.close();
  }
  if (state !== 'end') return null;
  const checked = checkedFiles(files);
  return checked && { swath: 'export-manifest', version: 1, files: checked };
}

/** The existing folder's manifest, or null when it has none (or one that is not Swath's: unreadable, too big, malformed, unsafe paths). */
async function readManifest(dir: string): Promise<Manifest | null> {
  const file = path.join(dir, EXPORT_MANIFEST);
  try {
    const info = await lstat(file);
    if (!info.isFile() || info.size > MAX_MANIFEST_BYTES) return null;
    if (info.size > MAX_WHOLE_MANIFEST_BYTES) return await readManifestLines(file);
    // Small: read whole (this version's layout, or an earlier version's pretty-printed one).
    const parsed = manifestSchema.safeParse(await readJsonFile(file));
    const checked = parsed.success ? checkedFiles(parsed.data.files) : null;
    return checked && { ...parsed.data!, files: checked };
  } catch {
    return null;
  }
}

/** What an existing folder holds: every file and folder (relative, forward slashes), links and other kinds as they are, never followed. */
interface Listing {
  files: string[];
  dirs: string[];
  /** Symbolic links, sockets…: never Swath's. */
  others: string[];
  /** Stopped at {@link MAX_EXISTING_ENTRIES}. */
  truncated: boolean;
}

async function listTree(root: string): Promise<Listing> {
  const out: Listing = { files: [], dirs: [], others: [], truncated: false };
  let count = 0;
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(rel ? path.join(root, ...rel.split('/')) : root, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (++count > MAX_EXISTING_ENTRIES) {
        out.truncated = true;
        return;
      }
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        out.dirs.push(p);
        await walk(p);
        if (out.truncated) return;
      } else if (entry.isFile()) {
        out.files.push(p);
      } else {
        out.others.push(p);
      }
    }
  };
  await walk('');
  return out;
}

/** Whether the file at `rel` is still exactly what the manifest says Swath wrote. */
async function unchanged(root: string, rel: string, expected: Manifest['files'][number]): Promise<boolean> {
  const file = path.join(root, ...rel.split('/'));
  const info = await lstat(file).catch(() => null);
  if (!info?.isFile() || info.size !== expected.size) return false;
  return sha256(await readFile(file)) === expected.sha256;
}

/**
 * What in an existing, non-empty folder Swath did not write (or changed since), relative paths;
 * empty when the folder holds exactly an earlier export's files and their folders.
 */
async function foreignEntries(dir: string, manifest: Manifest | null): Promise<{ foreign: string[]; more: boolean }> {
  const listing = await listTree(dir);
  const listed = new Map((manifest?.files ?? []).map((f) => [f.path, f]));
  // Folders an earlier export made: the parents of the files it wrote.
  const ownDirs = new Set<string>();
  for (const p of listed.keys()) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) ownDirs.add(parts.slice(0, i).join('/'));
  }
  const foreign: string[] = [...listing.others];
  for (const file of listing.files) {
    if (manifest && file === EXPORT_MANIFEST) continue;
    const expected = listed.get(file);
    if (!expected || !(await unchanged(dir, file, expected))) foreign.push(file);
  }
  // A folder of its own counts only when it holds nothing that was already named (an empty folder, say).
  for (const d of listing.dirs) {
    if (!ownDirs.has(d) && !foreign.some((f) => f.startsWith(`${d}/`))) foreign.push(`${d}/`);
  }
  foreign.sort();
  return { foreign, more: listing.truncated };
}

/** Removes the files an earlier export wrote (by its manifest) and then its folders if they are empty; anything else stays. */
async function removeOwn(root: string, manifest: Manifest): Promise<boolean> {
  for (const f of [...manifest.files.map((x) => x.path), EXPORT_MANIFEST]) {
    await unlink(path.join(root, ...f.split('/'))).catch(() => undefined);
  }
  const dirs = new Set<string>();
  for (const f of manifest.files) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  // Deepest first; rmdir (never a recursive rm) fails on a folder that still holds something.
  for (const d of [...dirs].sort((a, b) => b.split('/').length - a.split('/').length)) {
    await rmdir(path.join(root, ...d.split('/'))).catch(() => undefined);
  }
  return rmdir(root).then(() => true, () => false);
}

function describeForeign(dir: string, foreign: string[], more: boolean): AppError {
  const named = foreign.slice(0, NAMED_IN_REFUSAL).join(', ');
  const rest = foreign.length - NAMED_IN_REFUSAL;
  const tail = rest > 0 || more ? ` and ${more ? 'more' : `${rest} more`}` : '';
  const message = `${dir} holds files Swath did not write (${named}${tail}); an export replaces only an earlier Swath export of its own and never deletes anything else. Choose an empty or new folder.`;
  return new AppError('validation', message, { fields: { folder: [`Holds ${named}${tail}, not written by Swath. Choose an empty or new folder.`] } });
}

/**
 * Writes a folder of files so a reader sees either the old folder or the whole
 * new one: the tree and its manifest ({@link EXPORT_MANIFEST}) are written to a
 * hidden sibling, then renamed into place. An existing folder is replaced only
 * when it is empty or holds nothing but an earlier export's unchanged files (by
 * its manifest); then only those files are removed. Anything else is refused,
 * naming what is there, and left untouched.
 */
export async function writeTreeAtomic(dir: string, files: Iterable<TreeFile> | AsyncIterable<TreeFile>, options: TreeOptions = {}): Promise<void> {
  const parent = path.dirname(dir);
  await mkdir(parent, { recursive: true });
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = path.join(parent, `.${path.basename(dir)}.partial-${tag}`);
  try {
    // Files are written as they come (an export of many rasters is never held whole); the manifest records each.
    const written: ManifestFile[] = [];
    for await (const f of files) {
      throwIfAborted(options.signal);
      if (!isTreePath(f.path) || f.path === EXPORT_MANIFEST) throw new Error(`${f.path} is not a file name an export may write.`);
      if (written.length >= MAX_EXISTING_ENTRIES / 2) throw new AppError('validation', `An export writes at most ${MAX_EXISTING_ENTRIES / 2} files.`);
      const target = path.resolve(staging, ...f.path.split('/'));
      if (!target.startsWith(staging + path.sep)) throw new Error(`${f.path} is outside the export folder.`);
      await writeSynced(target, f.content);
      written.push({ path: f.path, size: Buffer.byteLength(f.content, 'utf8'), sha256: sha256(f.content) });
    }
    await writeSynced(path.join(staging, EXPORT_MANIFEST), manifestLines(written));
    throwIfAborted(options.signal);
    const existing = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (existing === null) {
      await rename(staging, dir);
    } else if (existing.length === 0) {
      await rmdir(dir);
      await rename(staging, dir);
    } else {
      const manifest = await readManifest(dir);
      const { foreign, more } = await foreignEntries(dir, manifest);
      if (!manifest || foreign.length > 0 || more) {
        throw describeForeign(dir, foreign.length ? foreign : existing.sort(), more);
      }
      throwIfAborted(options.signal);
      const old = path.join(parent, `.${path.basename(dir)}.old-${tag}`);
      await rename(dir, old);
      await rename(staging, dir);
      // Only what the earlier export wrote; a file that appeared meanwhile stays in the hidden old folder.
      await removeOwn(old, manifest);
    }
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  await syncDirectory(parent);
}
