/** Atomic file replacement shared by every store main keeps in userData (profiles, queue, library, settings). */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Prefix and suffix of the temporary files {@link writeFileAtomic} creates next to `path`. */
function tempPattern(path: string): { prefix: string; suffix: string } {
  return { prefix: `.${basename(path)}.`, suffix: '.tmp' };
}

/** Replaces `path` with `data` so that a crash leaves either the old or the new content, never a torn file. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const { prefix, suffix } = tempPattern(path);
  const tmp = join(dir, `${prefix}${process.pid}-${randomBytes(4).toString('hex')}${suffix}`);
  try {
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(data, 'utf8');
      // Without the fsync a power cut after the rename can leave an empty file under the final name.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

/** Removes temporary files a crashed {@link writeFileAtomic} left next to `path`. */
export async function removeStaleTempFiles(path: string): Promise<void> {
  const { prefix, suffix } = tempPattern(path);
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && name.endsWith(suffix))
      .map((name) => rm(join(dirname(path), name), { force: true })),
  );
}

/**
 * fsyncs a directory so a rename or link inside it survives a power cut. Windows cannot open a
 * directory for syncing (and NTFS journals the rename anyway), so there it does nothing.
 */
export async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
