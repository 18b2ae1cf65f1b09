import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/** Thrown when an operation stops because its AbortSignal fired. */
export function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  if (r instanceof Error && r.name === 'AbortError') return r;
  const e = new Error(typeof r === 'string' ? r : r instanceof Error ? r.message : 'The operation was aborted');
  e.name = 'AbortError';
  return e;
}

/** Throws an AbortError if the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/** fsyncs a directory so a rename or link inside it survives a power cut; a no-op where directories cannot be opened (Windows). */
export async function fsyncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Windows cannot open directories; NTFS journals the metadata anyway.
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * Writes JSON so readers only ever see the old or the new complete file: a unique temp file in the
 * same directory, fsync, rename over the target, fsync the directory.
 */
export async function writeJsonAtomic(file: string, value: unknown, signal?: AbortSignal): Promise<void> {
  throwIfAborted(signal);
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
    await fh.sync();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw new Error(`Could not write ${file}: ${(e as Error).message}`, { cause: e });
  }
  await fh.close();
  try {
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw new Error(`Could not replace ${file}: ${(e as Error).message}`, { cause: e });
  }
  await fsyncDir(dir);
}

/** Reads a JSON file; null when it does not exist, an Error naming the file when it is unreadable or not JSON. */
export async function readJsonFile(file: string, signal?: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, { encoding: 'utf8', signal });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
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
