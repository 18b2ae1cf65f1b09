import { randomUUID } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../common/errors.js';
import { FILM_CHUNK_BYTES, FILM_OPEN_MAX } from '../../preload/contract/timelapse.js';
import { publishNumbered } from '../shared/files.js';
import { readExactly, writeExactly } from '../shared/file-io.js';

/**
 * Films the renderer encoded, written by main: each arrives in ordered chunks into a hidden `.part`
 * file beside its target in the download folder's `exports/`, is checked to be the container it
 * claims (its first bytes), and is published under a name that says what it is, never over an
 * existing file (`-2`, `-3`… instead).
 */

/** A film's container. */
export type FilmFormat = 'webm' | 'mp4' | 'gif';

/** What a film is: the parts of its name. */
export interface FilmInfo {
  format: FilmFormat;
  bytes: number;
  area: string;
  index: string;
  first: string;
  last: string;
  fps: number;
}

/** The file name a film gets: `swath-timelapse-<area>-<index>-<first>_<last>-<fps>fps.<ext>`. */
export function filmFileName(f: Omit<FilmInfo, 'bytes'>): string {
  return `swath-timelapse-${f.area}-${f.index}-${f.first}_${f.last}-${f.fps}fps.${f.format}`;
}

/** Bytes read from the start of a film to recognise its container. */
const HEAD_BYTES = 64;

/** Why `head` (a film's first bytes) is not a `format` file, or null when it is. */
export function containerMismatch(format: FilmFormat, head: Uint8Array): string | null {
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (format === 'gif') return ascii(0, 6) === 'GIF89a' ? null : 'a GIF starts with "GIF89a"';
  if (format === 'mp4') return ascii(4, 8) === 'ftyp' ? null : 'an MP4 starts with an "ftyp" box';
  // WebM: the EBML magic, then a DocType element (0x42 0x82) of "webm" in the header.
  const ebml = head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3;
  if (!ebml) return 'a WebM starts with the EBML header (1A 45 DF A3)';
  for (let i = 4; i + 7 <= head.length; i++) {
    if (head[i] === 0x42 && head[i + 1] === 0x82 && ascii(i + 3, i + 7) === 'webm') return null;
  }
  return 'a WebM\'s EBML header names the DocType "webm"';
}

interface OpenFilm {
  info: FilmInfo;
  target: string;
  part: string;
  handle: FileHandle;
  received: number;
}

/** The films being written (at most {@link FILM_OPEN_MAX}). */
export class FilmWriter {
  private readonly open = new Map<string, OpenFilm>();

  constructor(private readonly downloadDir: () => string) {}

  /** Opens a film's `.part` file; answers its handle. */
  async begin(info: FilmInfo): Promise<string> {
    if (info.first > info.last) throw new AppError('validation', 'first: the first date is after the last.', { fields: { first: ['The first date is after the last.'] } });
    if (this.open.size >= FILM_OPEN_MAX) throw new AppError('validation', `At most ${FILM_OPEN_MAX} films are written at once: finish or cancel one first.`);
    const dir = path.join(this.downloadDir(), 'exports');
    await mkdir(dir, { recursive: true });
    const target = path.join(dir, filmFileName(info));
    const id = randomUUID();
    const part = path.join(dir, `.${path.basename(target)}.${id}.part`);
    const handle = await open(part, 'wx+', 0o644);
    this.open.set(id, { info, target, part, handle, received: 0 });
    return id;
  }

  private film(id: string): OpenFilm {
    const f = this.open.get(id);
    if (!f) throw new AppError('not-found', `id: no film ${id} is being written (finished, cancelled or never begun).`, { fields: { id: ['No such film.'] } });
    return f;
  }

  /** Appends the next chunk (base64); chunks come in order and never past the declared size. */
  async chunk(id: string, offset: number, data: string): Promise<number> {
    const f = this.film(id);
    if (offset !== f.received) throw new AppError('validation', `offset: expected ${f.received}, got ${offset} (chunks come in order).`, { fields: { offset: [`Expected ${f.received}.`] } });
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length === 0 || bytes.length > FILM_CHUNK_BYTES) throw new AppError('validation', `data: a chunk is 1 to ${FILM_CHUNK_BYTES} bytes.`, { fields: { data: ['Wrong chunk size.'] } });
    if (f.received + bytes.length > f.info.bytes) {
      await this.drop(id);
      throw new AppError('validation', `data: more than the ${f.info.bytes} bytes declared; the film was dropped.`, { fields: { data: ['Past the declared size.'] } });
    }
    await writeExactly(f.handle, bytes, f.received);
    f.received += bytes.length;
    return f.received;
  }

  /** Checks the film is complete and the container it claims, then publishes it; answers its path. */
  async finish(id: string): Promise<{ file: string; bytes: number }> {
    const f = this.film(id);
    try {
      if (f.received !== f.info.bytes) throw new AppError('validation', `The film is incomplete: ${f.received} of ${f.info.bytes} bytes arrived.`);
      const head = Buffer.alloc(Math.min(HEAD_BYTES, f.received));
      await readExactly(f.handle, head, 0);
      const wrong = containerMismatch(f.info.format, head);
      if (wrong) throw new AppError('validation', `format: these bytes are not a ${f.info.format.toUpperCase()} film (${wrong}).`, { fields: { format: ['The bytes are not this format.'] } });
      await f.handle.sync();
      await f.handle.close();
      return { file: await publishNumbered(f.part, f.target), bytes: f.received };
    } finally {
      await this.drop(id);
    }
  }

  /** Drops an open film and its `.part` file; false when there was none. */
  async drop(id: string): Promise<boolean> {
    const f = this.open.get(id);
    if (!f) return false;
    this.open.delete(id);
    await f.handle.close().catch(() => undefined);
    await rm(f.part, { force: true });
    return true;
  }

  /** Drops every open film (the app closes). */
  async close(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.drop(id)));
  }
}
