/**
 * The team's shared raster store: a folder on a network share every analyst's machine mounts (the
 * admin policy names it), optionally served read-only over https by any static web server.
 *
 * Copies are atomic and checked: the file is streamed to a hidden `.part` beside its final name,
 * fsynced, read back from the share and hashed, and only a copy whose sha256 is the one given is
 * published, by a link that never replaces an existing file (where the share cannot link, an exclusive claim of the name and a rename).
 * A file with the same sha256 already at the name is reused; another file there gets the copy a
 * unique name. Every path the store hands out or accepts is relative, with forward slashes, and
 * resolves inside the share (symbolic links included). All I/O is streamed and asynchronous:
 * memory stays bounded and main's event loop never waits on the share.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, realpath, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { abortError, throwIfAborted } from '../../common/abort.js';
import { AppError } from '../../common/errors.js';
import { publishWithoutReplacing } from '../shared/files.js';
import { storagePathProblem } from './storage-path.js';

/** Chunk size of the streamed copy and hash: what the store holds in memory per transfer. */
const CHUNK = 1 << 20;
/** Most alternative names tried before the store gives up finding a free one. */
const MAX_NAME_TRIES = 1000;
/** A `.part` older than this in a folder the store writes to is a crashed copy's, and removed. */
export const STALE_PART_MS = 24 * 60 * 60 * 1000;
/** Hidden temporary names: `.<final name>.<random>.part`. */
const PART = /^\..+\.[0-9a-f]{12}\.part$/;

/** Options of {@link SharedStore}. */
export interface SharedStoreOptions {
  /** The share's folder as this machine mounts it (from the admin policy). */
  root: string;
  /** Clock for the age of stale `.part` files. */
  now?: () => number;
}

/** A hidden temporary name in `dir` for a copy to `name`: `.<name>.<random>.part` (at most 100 characters of the name, so it stays within the 255 a file system allows). */
export function partBeside(dir: string, name: string): string {
  return path.join(dir, `.${name.slice(0, 100)}.${randomBytes(6).toString('hex')}.part`);
}

/** Streams `from` into a new file `to` (never an existing one: opened with O_EXCL), fsynced before it is closed. */
export async function copyExclusive(from: string, to: string, signal: AbortSignal): Promise<void> {
  await pipeline(
    createReadStream(from, { highWaterMark: CHUNK, signal }),
    createWriteStream(to, { flags: 'wx', mode: 0o644, highWaterMark: CHUNK, flush: true }),
    { signal },
  );
}

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** sha256 of a file, streamed. */
async function hashFile(file: string, signal: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: CHUNK, signal })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** `name.tif`, `name_1.tif`, `name_2.tif`, … */
function candidate(name: string, n: number): string {
  if (n === 0) return name;
  const ext = path.extname(name);
  return `${name.slice(0, name.length - ext.length)}_${n}${ext}`;
}

function isInside(root: string, p: string): boolean {
  const norm = (s: string) => (process.platform === 'win32' ? s.toLowerCase() : s);
  const r = norm(root);
  const q = norm(p);
  return q === r || q.startsWith(r.endsWith(path.sep) ? r : r + path.sep);
}

/** A relative storage path (forward slashes) of an absolute path inside `root`. */
function relativeOf(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/');
}

/**
 * The URL a raster is read from when a web server serves the share at `base` (https; plain http
 * only on a loopback host): each path segment percent-encoded, so names with spaces, `#` or `?`
 * stay names. Refuses a storage path {@link SharedStore.resolve} would refuse, and a base with
 * credentials, a query or a fragment. Needs no mounted share (a machine without one reads over it).
 */
export function readUrlOf(storagePath: string, base: string): string {
  const problem = storagePathProblem(storagePath);
  if (problem) throw new AppError('validation', `The storage path ${JSON.stringify(storagePath.slice(0, 200))} is refused: ${problem}.`);
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new AppError('validation', `The shared store's read URL ${JSON.stringify(base.slice(0, 200))} is not a URL.`);
  }
  const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new AppError('validation', `The shared store's read URL ${url.origin} must use https.`);
  }
  if (url.username || url.password) throw new AppError('validation', 'The shared store\'s read URL must not carry a user name or password.');
  if (url.search || url.hash) throw new AppError('validation', 'The shared store\'s read URL must not have a query or a fragment.');
  const basePath = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  return `${url.origin}${basePath}${storagePath.split('/').map(encodeURIComponent).join('/')}`;
}

/** The team's shared raster folder. */
export class SharedStore {
  readonly root: string;
  private readonly now: () => number;

  /** A store over `options.root`; nothing is touched until it is used. */
  constructor(options: SharedStoreOptions) {
    if (!path.isAbsolute(options.root)) throw new AppError('validation', `The shared store's folder must be an absolute path; got ${JSON.stringify(options.root)}.`);
    this.root = path.resolve(options.root);
    this.now = options.now ?? Date.now;
  }

  /** The share's real path; an io AppError saying it is not reachable when it is not there. */
  private async realRoot(): Promise<string> {
    try {
      const real = await realpath(this.root);
      if (!(await stat(real)).isDirectory()) throw new AppError('io', `The shared store ${this.root} is not a folder.`);
      return real;
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw new AppError('io', `The shared store ${this.root} is not reachable (${code(e) === 'ENOENT' ? 'the share is not mounted or the folder does not exist' : (e as Error).message}).`, { cause: e });
    }
  }

  private refuse(storagePath: unknown, reason: string): AppError {
    const shown = typeof storagePath === 'string' ? JSON.stringify(storagePath.slice(0, 200)) : String(storagePath);
    return new AppError('validation', `The storage path ${shown} is refused: ${reason}.`);
  }

  /** The real folder `rel` (a storage path's folder part, '' for the root) inside the share; refused when a link leads out of it. */
  private async folderInside(real: string, relDir: string, create: boolean): Promise<string> {
    const dir = relDir === '' ? real : path.join(real, ...relDir.split('/'));
    if (create) await mkdir(dir, { recursive: true });
    const realDir = await realpath(dir);
    if (!isInside(real, realDir)) throw this.refuse(relDir, 'a symbolic link leads outside the shared store');
    return realDir;
  }

  /**
   * The absolute path of a stored raster, inside the share. Refuses (validation) a path that is
   * absolute, climbs with `..`, names a drive, holds NUL or control characters, or leads outside
   * the share through a symbolic link; an io error when the share or the file is not there.
   */
  async resolve(storagePath: string): Promise<string> {
    const problem = storagePathProblem(storagePath);
    if (problem) throw this.refuse(storagePath, problem);
    const real = await this.realRoot();
    const segments = storagePath.split('/');
    let dir: string;
    try {
      dir = await this.folderInside(real, segments.slice(0, -1).join('/'), false);
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw new AppError('io', `${storagePath} is not in the shared store ${this.root} (${code(e) === 'ENOENT' ? 'its folder does not exist' : (e as Error).message}).`, { cause: e });
    }
    const abs = path.join(dir, segments[segments.length - 1]!);
    let target: string;
    try {
      target = await realpath(abs);
    } catch (e) {
      throw new AppError('io', `${storagePath} is not in the shared store ${this.root} (${code(e) === 'ENOENT' ? 'no such file' : (e as Error).message}).`, { cause: e });
    }
    if (!isInside(real, target)) throw this.refuse(storagePath, 'a symbolic link leads outside the shared store');
    if (!(await stat(target)).isFile()) throw new AppError('io', `${storagePath} in the shared store ${this.root} is not a file.`);
    return target;
  }

  /** The URL a raster is read from when a web server serves the share at `base` (see {@link readUrlOf}). */
  readUrl(storagePath: string, base: string): string {
    return readUrlOf(storagePath, base);
  }

  /**
   * Copies `localFile` (whose sha256 is `sha256`) into the share at `suggestedRelPath`, or at a
   * free variant of it (`name_1.tif`, …) when another file holds that name, and resolves to the
   * storage path it is at. A file with the same sha256 already at a candidate name is reused (no
   * copy). Creates the folders; cleans its `.part` on any failure (abort included) and the `.part`
   * files of crashed copies older than {@link STALE_PART_MS} in the target folder.
   * Errors (AppError): validation for a bad path or hash, io naming the path and the reason
   * (share not mounted or not writable, disk full, the copy's sha256 differs from `sha256`).
   */
  async put(localFile: string, sha256: string, suggestedRelPath: string, signal: AbortSignal): Promise<string> {
    throwIfAborted(signal);
    if (!SHA256.test(sha256)) throw new AppError('validation', `The sha256 of ${localFile} must be 64 lower-case hex digits.`);
    const problem = storagePathProblem(suggestedRelPath);
    if (problem) throw this.refuse(suggestedRelPath, problem);
    const real = await this.realRoot();
    const segments = suggestedRelPath.split('/');
    const name = segments[segments.length - 1]!;
    let dir: string;
    try {
      dir = await this.folderInside(real, segments.slice(0, -1).join('/'), true);
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw this.ioError(`Could not create the folder of ${suggestedRelPath} in the shared store ${this.root}`, e);
    }
    let size: number;
    try {
      size = (await stat(localFile)).size;
    } catch (e) {
      throw new AppError('io', `Could not read ${localFile}: ${(e as Error).message}`, { cause: e });
    }
    await this.removeStaleParts(dir);

    // A candidate holding the same bytes is reused; a free one is where the copy goes.
    const free = async (from: number): Promise<{ reuse: string } | { at: number }> => {
      for (let n = from; n < MAX_NAME_TRIES; n++) {
        throwIfAborted(signal);
        const abs = path.join(dir, candidate(name, n));
        let st;
        try {
          st = await lstat(abs);
        } catch (e) {
          if (code(e) === 'ENOENT') return { at: n };
          throw this.ioError(`Could not look at ${abs}`, e);
        }
        if (!st.isFile() || st.size !== size) continue;
        let same: boolean;
        try {
          same = (await hashFile(abs, signal)) === sha256;
        } catch (e) {
          throwIfAborted(signal);
          throw this.ioError(`Could not read ${abs} to compare it`, e);
        }
        if (same) return { reuse: relativeOf(real, abs) };
      }
      throw new AppError('io', `No free name for ${name} in ${dir}: ${MAX_NAME_TRIES} variants are taken.`);
    };

    let slot = await free(0);
    if ('reuse' in slot) return slot.reuse;
    const part = partBeside(dir, name);
    try {
      await copyExclusive(localFile, part, signal);
      throwIfAborted(signal);
      const copied = await hashFile(part, signal);
      if (copied !== sha256) {
        throw new AppError('io', `The copy of ${localFile} in the shared store (${part}) has sha256 ${copied}, not ${sha256}: the file changed during the copy or the share corrupted it. Nothing was published.`);
      }
      for (;;) {
        const target = path.join(dir, candidate(name, slot.at));
        // Some shares cannot fsync a folder; the file itself is synced.
        if (await publishWithoutReplacing(part, target, { folderSyncBestEffort: true })) {
          return relativeOf(real, target);
        }
        // Taken meanwhile (a teammate's copy): the same bytes are reused, others make us move on.
        slot = await free(slot.at);
        if ('reuse' in slot) return slot.reuse;
      }
    } catch (e) {
      if (signal.aborted) throw abortError(signal);
      if (e instanceof AppError) throw e;
      throw this.ioError(`Could not copy ${localFile} to ${path.join(dir, name)} in the shared store`, e);
    } finally {
      await rm(part, { force: true }).catch(() => undefined);
    }
  }

  /** Removes the `.part` files of crashed copies (older than {@link STALE_PART_MS}) in `dir`; a teammate's copy in flight is younger and kept. */
  private async removeStaleParts(dir: string): Promise<void> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    for (const n of names) {
      if (!PART.test(n)) continue;
      const p = path.join(dir, n);
      try {
        const st = await lstat(p);
        if (st.isFile() && this.now() - st.mtimeMs > STALE_PART_MS) await rm(p, { force: true });
      } catch {
        // Gone already (another machine cleaned it): nothing to do.
      }
    }
  }

  private ioError(what: string, e: unknown): AppError {
    const c = code(e);
    const why =
      c === 'ENOSPC' || c === 'EDQUOT' ? 'the share is full'
      : c === 'EACCES' || c === 'EPERM' || c === 'EROFS' ? 'the share is not writable for this user'
      : c === 'ENOENT' ? 'the share or the file went away (is it still mounted?)'
      : (e as Error).message;
    return new AppError('io', `${what}: ${why}.`, { cause: e });
  }
}
