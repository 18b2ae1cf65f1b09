/**
 * The one files module of main: every store main keeps in userData (profiles, settings, notices,
 * the specification cache, the updater's state), every small file written beside a download (VRTs,
 * batch manifests, GeoJSON) and every publish of a finished file goes through these functions.
 *
 * - {@link writeFileAtomic} replaces a file: temporary file, fsync, rename, fsync of the folder.
 * - {@link writeJsonAtomic}, {@link readJsonFile} and {@link JsonStore}: JSON documents over it.
 * - {@link publishWithoutReplacing} gives a finished file its name only if that name is free;
 *   {@link writeNewFile} writes a new file under the first free name of a numbered series.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { throwIfAborted } from '../../common/abort.js';

/** Prefix and suffix of the temporary files {@link writeFileAtomic} creates next to `path`. */
function tempPattern(path: string): { prefix: string; suffix: string } {
  return { prefix: `.${basename(path)}.`, suffix: '.tmp' };
}

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Permissions of a new file: 0o600 (main's own state) unless the file is meant for others (0o644). */
  mode?: number;
}

/**
 * Replaces `path` with `data` so that a crash leaves either the old or the new content, never a torn
 * file: a hidden temporary file beside it (created exclusively), fsynced, renamed over `path`, and
 * the folder fsynced so the rename survives a power cut. The temporary file is removed on failure.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const { prefix, suffix } = tempPattern(path);
  const tmp = join(dir, `${prefix}${process.pid}-${randomBytes(4).toString('hex')}${suffix}`);
  try {
    const handle = await open(tmp, 'wx', options.mode ?? 0o600);
    try {
      await handle.writeFile(data);
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

/** Error codes of a file system that cannot hard-link (FAT, some network shares, another device). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EINVAL', 'EMLINK']);

/** Options of {@link publishWithoutReplacing}. */
export interface PublishOptions {
  /**
   * Whether a folder that cannot be fsynced is tolerated (network shares): the file itself was
   * fsynced before publishing. False (the default) on local disks, where it is an error.
   */
  folderSyncBestEffort?: boolean;
}

/**
 * Publishes the finished, fsynced file `part` as `target` unless something is already there: true
 * when published (`part` is then gone and the folder fsynced), false when the name is taken (`part`
 * is kept, for another name). A hard link fails atomically on a taken name; where the file system has
 * no links, the name is claimed with O_EXCL (atomic too) and `part` renamed over the claim.
 */
export async function publishWithoutReplacing(part: string, target: string, options: PublishOptions = {}): Promise<boolean> {
  let linked = true;
  try {
    await link(part, target);
  } catch (e) {
    if (errorCode(e) === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(errorCode(e) ?? '')) throw e;
    linked = false;
  }
  if (linked) {
    await unlink(part);
  } else {
    try {
      await (await open(target, 'wx')).close();
    } catch (e) {
      if (errorCode(e) === 'EEXIST') return false;
      throw e;
    }
    try {
      await rename(part, target);
    } catch (e) {
      await unlink(target).catch(() => undefined);
      throw e;
    }
  }
  const synced = syncDirectory(dirname(target));
  await (options.folderSyncBestEffort ? synced.catch(() => undefined) : synced);
  return true;
}

/**
 * Writes `data` as a new file `file`, or `file-2`, `file-3`… (before the extension) when the name is
 * taken: never over a file that is there, whoever made it. Answers the path written.
 */
export async function writeNewFile(file: string, data: Uint8Array, maxNumber = 10_000): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  const part = join(dirname(file), `.${basename(file)}.${randomBytes(8).toString('hex')}.part`);
  await writeFileAtomic(part, data, { mode: 0o644 });
  try {
    const ext = extname(file);
    for (let n = 1; n <= maxNumber; n++) {
      const candidate = n === 1 ? file : `${file.slice(0, file.length - ext.length)}-${n}${ext}`;
      if (await publishWithoutReplacing(part, candidate)) return candidate;
    }
    throw new Error(`Too many files named ${basename(file)} in ${dirname(file)}.`);
  } finally {
    await rm(part, { force: true });
  }
}

/** The errno code of a file-system error. */
function errorCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** Writes JSON so readers only ever see the old or the new complete file (temp file, fsync, rename, directory fsync). */
export async function writeJsonAtomic(file: string, value: unknown, signal?: AbortSignal): Promise<void> {
  throwIfAborted(signal);
  try {
    await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
  } catch (e) {
    throw new Error(`Could not write ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** Reads a JSON file; null when it does not exist, an Error naming the file when it is unreadable or not JSON. */
export async function readJsonFile(file: string, signal?: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, { encoding: 'utf8', signal });
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return null;
    throw new Error(`Could not read ${file}: ${(e as Error).message}`, { cause: e });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new Error(`${file} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Serialises writes of one JSON document: callers ask for a save whenever state changed, and
 * bursts collapse into at most one write in flight plus one pending, each of the latest state.
 */
export class JsonStore {
  private writing: Promise<void> | null = null;
  private dirty = false;

  /** Creates a store for `file` whose content is produced by `snapshot` at write time. */
  constructor(
    readonly file: string,
    private readonly snapshot: () => unknown,
  ) {}

  /** Resolves once a write that includes every change made before this call is on disk. */
  save(): Promise<void> {
    this.dirty = true;
    if (!this.writing) this.writing = this.loop();
    return this.writing;
  }

  private async loop(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        await writeJsonAtomic(this.file, this.snapshot());
      }
    } finally {
      this.writing = null;
    }
  }
}
