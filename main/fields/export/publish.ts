import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../common/errors.js';
import { publishWithoutReplacing } from '../../shared/files.js';

/** The most numbered names tried before an export is refused. */
const MAX_NUMBERED = 10_000;

/** A file name part from free text (a set's name): letters, digits, dashes; never empty, never a path. */
export function slug(text: string, fallback: string): string {
  return text.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || fallback;
}

/**
 * Writes an export through `write` into a hidden part file of `dir`, then publishes it as
 * `<base>.<ext>`, or `<base>-2.<ext>`, `-3`… when taken: never over an existing file. `write`
 * must leave the part file complete and fsynced. Returns the published path.
 */
export async function publishExport(dir: string, base: string, ext: string, write: (part: string) => Promise<void>): Promise<string> {
  await mkdir(dir, { recursive: true });
  const part = path.join(dir, `.${base}.${randomUUID()}.part`);
  try {
    await write(part);
    for (let n = 1; n <= MAX_NUMBERED; n++) {
      const target = path.join(dir, n === 1 ? `${base}.${ext}` : `${base}-${n}.${ext}`);
      if (await publishWithoutReplacing(part, target)) return target;
    }
    throw new AppError('validation', `Too many files named ${base}.${ext} in ${dir}.`);
  } finally {
    await rm(part, { force: true });
  }
}
