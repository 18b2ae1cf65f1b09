import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../common/errors.js';
import { throwIfAborted } from '../../common/abort.js';
import { syncDirectory } from '../shared/atomic-file.js';

/** One file of a tree, by its path relative to the tree's folder (forward slashes). */
export interface TreeFile {
  path: string;
  content: string;
}

/** Options of {@link writeTreeAtomic}. */
export interface TreeOptions {
  /** The file (relative) whose JSON says whether an existing folder may be replaced. */
  marker: string;
  /** True when the existing folder's marker shows it is an earlier export that may be replaced. */
  replaceable: (marker: unknown) => boolean;
  signal?: AbortSignal;
}

async function writeSynced(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const handle = await open(file, 'wx', 0o644);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readMarker(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

/**
 * Writes a folder of files so a reader sees either the old folder or the whole
 * new one: the tree is written to a hidden sibling, then renamed into place.
 * An existing folder is replaced only when it is empty or its marker file says
 * it is an earlier export; anything else is refused and left untouched.
 */
export async function writeTreeAtomic(dir: string, files: readonly TreeFile[], options: TreeOptions): Promise<void> {
  const parent = path.dirname(dir);
  await mkdir(parent, { recursive: true });
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = path.join(parent, `.${path.basename(dir)}.partial-${tag}`);
  try {
    for (const f of files) {
      throwIfAborted(options.signal);
      const target = path.resolve(staging, ...f.path.split('/'));
      if (!target.startsWith(staging + path.sep)) throw new Error(`${f.path} is outside the export folder.`);
      await writeSynced(target, f.content);
    }
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
    } else if (options.replaceable(await readMarker(path.join(dir, options.marker)))) {
      const old = path.join(parent, `.${path.basename(dir)}.old-${tag}`);
      await rename(dir, old);
      await rename(staging, dir);
      await rm(old, { recursive: true, force: true });
    } else {
      throw new AppError('validation', `${dir} is not empty and is not an earlier export; choose an empty or new folder.`, { fields: { folder: ['Choose an empty or new folder.'] } });
    }
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  await syncDirectory(parent);
}
