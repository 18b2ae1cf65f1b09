import { readFile } from 'node:fs/promises';
import { throwIfAborted } from '../../common/abort.js';
import { writeFileAtomic } from './atomic-file.js';

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
