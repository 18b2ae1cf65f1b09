/**
 * The one files module of main: every store main keeps in userData (profiles, settings, notices,
 * the specification cache, the updater's state), every small file written beside a download (VRTs,
 * batch manifests, GeoJSON) and every publish of a finished file goes through these functions.
 *
 * - {@link writeFileAtomic} replaces a file: temporary file, fsync, rename, fsync of the folder.
 * - {@link writeJsonAtomic}, {@link readJsonFile} and {@link JsonStore}: JSON documents over it; a
 *   document that carries a `version` is read only at the version its reader knows.
 * - Streamed writes (a download, a pyramid, a team copy) keep the same discipline on their own
 *   `.part` file: written and fsynced by the writer, then {@link replaceWithPart} (rename, fsync
 *   of the folder) or {@link publishWithoutReplacing} (the name only if it is free).
 * - {@link writeNewFile}: a new file written whole and fsynced, the step every write above and the
 *   tree variant (atomic-tree.ts: a folder staged, then renamed into place) are built on.
 * - {@link publishNumbered}: a finished part under the first free name of a numbered series
 *   (`name.pdf`, `name-2.pdf`… for exports; `name (1).tif`… for downloads), never over a file;
 *   {@link writeNumberedFile} writes the part first.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isAbortError, throwIfAborted } from '../../common/abort.js';
import { AppError } from '../../common/errors.js';

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
    await writeNewFile(tmp, data, options.mode ?? 0o600);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

/**
 * Writes `content` (bytes, text, or text a piece at a time) to a new file (never an existing one:
 * created exclusively) and fsyncs it before closing; without the fsync a power cut after a later
 * rename can leave an empty file under the final name. Text pieces go out in chunks of ~1 MB, so
 * a long document is never one big string.
 */
export async function writeNewFile(file: string, content: string | Uint8Array | Iterable<string>, mode: number): Promise<void> {
  const handle = await open(file, 'wx', mode);
  try {
    if (typeof content === 'string' || content instanceof Uint8Array) await handle.writeFile(content);
    else {
      let chunk = '';
      for (const piece of content) {
        chunk += piece;
        if (chunk.length >= 1 << 20) {
          await handle.write(chunk, null, 'utf8');
          chunk = '';
        }
      }
      if (chunk) await handle.write(chunk, null, 'utf8');
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Gives a finished part file its final name, replacing what is there: the writer streamed `part`
 * and fsynced it (when `durable`), this renames it over `target` and fsyncs the folder so the
 * rename survives a power cut. The part is removed when the rename fails. `durable: false` (a
 * cache that is rebuilt when lost) skips the folder's fsync, as the writer skipped the file's.
 */
export async function replaceWithPart(part: string, target: string, options: { durable?: boolean } = {}): Promise<void> {
  try {
    await rename(part, target);
  } catch (e) {
    await unlink(part).catch(() => undefined);
    throw e;
  }
  if (options.durable ?? true) await syncDirectory(dirname(target));
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
 * How a taken name is numbered: `dash` (`name.pdf`, `name-2.pdf`, `name-3.pdf`…) for every export
 * a person names (briefs, films, CSV, fields' exports); `copy` (`name.tif`, `name (1).tif`…) for
 * downloads and teammates' rasters copied in, as a browser names a second download.
 */
export type NumberedNaming = 'dash' | 'copy';

/**
 * A file or folder name part from free text (a parcel set's or a watch's name): ASCII letters,
 * digits and dashes (accents folded: "Müller" gives "Muller"), at most `maxLength` characters; never empty (`fallback`), never a path.
 */
export function namePart(text: string, fallback: string, maxLength = 60): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, maxLength) || fallback;
}

/** `name`'s `i`-th alternative under `naming` (0 is the name itself), numbered before the extension. */
export function numberedName(name: string, i: number, naming: NumberedNaming = 'dash'): string {
  if (i === 0) return name;
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot <= 0 ? [name, ''] : [name.slice(0, dot), name.slice(dot)];
  return naming === 'dash' ? `${stem}-${i + 1}${ext}` : `${stem} (${i})${ext}`;
}

/** `name (n).ext` back to `name.ext` and n, so a copy of "x (2).tif" goes on at "x (3).tif", not "x (2) (1).tif". */
function copyNumber(name: string): { name: string; from: number } {
  const m = /^(.*) \((\d+)\)(\.[^.]*)?$/.exec(name);
  return m ? { name: m[1]! + (m[3] ?? ''), from: Number(m[2]) } : { name, from: 0 };
}

/** How many names {@link publishNumbered} tries before it gives up. */
export const MAX_NUMBERED_TRIES = 10_000;

/** Options of {@link publishNumbered} and {@link writeNumberedFile}. */
export interface NumberedOptions extends PublishOptions {
  /** How a taken name is numbered; `dash` by default. */
  naming?: NumberedNaming;
  /** Most names tried ({@link MAX_NUMBERED_TRIES} by default). */
  maxTries?: number;
  /** Stops between tries (an AbortError; the part is removed). */
  signal?: AbortSignal;
}

/**
 * Publishes the finished, fsynced file `part` under `target`'s first free numbered name
 * ({@link numberedName}), never over a file that is there, whoever made it and when: each name is
 * claimed by {@link publishWithoutReplacing}, so two publishers racing for a name get two names.
 * Answers the path published. The part is gone either way: published, or removed on an error (no
 * free name among `maxTries`, an abort, the file system's refusal).
 */
export async function publishNumbered(part: string, target: string, options: NumberedOptions = {}): Promise<string> {
  const { naming = 'dash', maxTries = MAX_NUMBERED_TRIES, signal } = options;
  const dir = dirname(target);
  const base = naming === 'copy' ? copyNumber(basename(target)) : { name: basename(target), from: 0 };
  try {
    for (let i = base.from; i < base.from + maxTries; i++) {
      throwIfAborted(signal);
      const candidate = join(dir, numberedName(base.name, i, naming));
      if (await publishWithoutReplacing(part, candidate, options)) return candidate;
    }
    throw new AppError('io', `No free name for ${basename(target)} in ${dir}: ${maxTries} numbered names are taken.`);
  } catch (e) {
    await rm(part, { force: true });
    throw e;
  }
}

/**
 * Writes a new file under `file`'s first free numbered name ({@link publishNumbered}) and answers
 * the path written. `content` is the bytes or text, or a writer that leaves the hidden part file it
 * is given complete and fsynced (a GeoPackage, a long CSV); nothing is left under any name when
 * the write fails.
 */
export async function writeNumberedFile(file: string, content: string | Uint8Array | ((part: string) => Promise<void>), options: NumberedOptions = {}): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  const part = join(dirname(file), `.${basename(file).slice(0, 100)}.${randomBytes(8).toString('hex')}.part`);
  try {
    if (typeof content === 'function') await content(part);
    else await writeNewFile(part, content, 0o644);
  } catch (e) {
    await rm(part, { force: true });
    throw e;
  }
  return publishNumbered(part, file, options);
}

/** The errno code of a file-system error. */
function errorCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** How a JSON document is written. */
export interface JsonWriteOptions {
  /** One line without indentation (large machine-read documents: a cached specification, the demo service's state); default indented. */
  compact?: boolean;
  /** Permissions of a new file (see {@link AtomicWriteOptions}). */
  mode?: number;
}

/** Writes JSON so readers only ever see the old or the new complete file (temp file, fsync, rename, directory fsync). */
export async function writeJsonAtomic(file: string, value: unknown, signal?: AbortSignal, options: JsonWriteOptions = {}): Promise<void> {
  throwIfAborted(signal);
  try {
    await writeFileAtomic(file, options.compact ? JSON.stringify(value) : `${JSON.stringify(value, null, 2)}\n`, { mode: options.mode });
  } catch (e) {
    throw new Error(`Could not write ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** Why {@link readJsonFile} could not read a document: `unreadable` (the file system refused), `invalid` (not JSON, or another version). */
export class JsonFileError extends Error {
  constructor(
    readonly problem: 'unreadable' | 'invalid',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'JsonFileError';
  }
}

/**
 * Reads a JSON document; null when the file does not exist, a {@link JsonFileError} naming the file
 * when it is unreadable or not JSON, an AbortError as it is. With `version`, the document is a
 * versioned one (an object whose `version` is a number): another version, or none, is `invalid`.
 */
export async function readJsonFile(file: string, signal?: AbortSignal, version?: number): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, { encoding: 'utf8', signal });
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return null;
    if (isAbortError(e)) throw e;
    throw new JsonFileError('unreadable', `Could not read ${file}: ${(e as Error).message}`, { cause: e });
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    throw new JsonFileError('invalid', `${file} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  if (version !== undefined) {
    const found = (value as { version?: unknown } | null)?.version;
    if (found !== version) throw new JsonFileError('invalid', `${file} is not a version ${version} document (its version: ${typeof found === 'number' ? found : 'none'}).`);
  }
  return value;
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
    private readonly options: JsonWriteOptions = {},
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
        await writeJsonAtomic(this.file, this.snapshot(), undefined, this.options);
      }
    } finally {
      this.writing = null;
    }
  }
}
