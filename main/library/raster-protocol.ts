import { open, stat, type FileHandle } from 'node:fs/promises';
import { throwIfAborted } from '../../common/abort.js';

/**
 * The logic behind `swath-raster://<library-id>`: the renderer names a library id, never a path,
 * and gets the file with HTTP Range support. The Electron host wraps the result in a Response
 * inside protocol.handle; this module has no Electron dependency so it is tested under plain Node.
 *
 * Multiple ranges (`bytes=0-1,5-6`) are answered with the first satisfiable range only, as a 206
 * whose Content-Range says which bytes they are; RFC 9110 lets a server do that instead of a
 * multipart/byteranges body, and geotiff.js (the one client) asks for one range at a time.
 * A malformed or non-bytes Range header is ignored (200 with the whole file), as RFC 9110 requires.
 */

/** URL scheme served by {@link serveLibraryFile}. */
export const RASTER_SCHEME = 'swath-raster';

/**
 * A raster that is not a file on this machine (a teammate's, read over the team's read URL): its
 * size and a reader of byte ranges that checks what the remote end sends (see main/team/range-reader.ts).
 */
export interface RemoteRasterFile {
  size: number;
  /** Bytes [start, end] (inclusive); rejects when the remote end refuses or answers wrongly. */
  open(start: number, end: number, signal: AbortSignal): Promise<ReadableStream<Uint8Array>>;
}

/**
 * What the protocol needs from the library: a path for an id, or a remote raster main reads for the
 * renderer (then `path` is only where it comes from, for messages).
 */
export interface RasterFileLookup {
  get(id: string): { path: string; remote?: RemoteRasterFile } | undefined;
}

/** An HTTP-like answer; body is null for HEAD, errors and empty ranges. */
export interface RasterResponse {
  status: number;
  headers: Record<string, string>;
  body: ReadableStream<Uint8Array> | null;
}

/** Bytes per read from disk: large enough for throughput, small enough that a cancelled request wastes little. */
const READ_CHUNK = 1024 * 1024;

// Library ids are UUIDs; anything with "/", "%", "." or other characters cannot be one, so it is refused before lookup.
const ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;

/** The library id named by a `swath-raster://<id>` URL, or null when the URL is anything else. */
export function libraryIdFromUrl(url: string): string | null {
  const prefix = `${RASTER_SCHEME}://`;
  if (url.slice(0, prefix.length).toLowerCase() !== prefix) return null;
  let rest = url.slice(prefix.length);
  const cut = rest.search(/[?#]/);
  if (cut >= 0) rest = rest.slice(0, cut);
  // Electron adds a trailing slash to standard-scheme URLs without a path.
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  return ID_PATTERN.test(rest) ? rest : null;
}

/** Result of {@link parseRange} against a file size. */
export type ParsedRange =
  | { kind: 'none' }
  | { kind: 'unsatisfiable' }
  | { kind: 'empty' }
  | { kind: 'range'; start: number; end: number };

/**
 * Interprets a Range header for a representation of `size` bytes (RFC 9110 §14): `none` when absent
 * or invalid (serve everything), `unsatisfiable` (416), `empty` (a suffix range of an empty file:
 * satisfiable but there is nothing to send, so 200 with no body), or the first satisfiable
 * range with an inclusive end.
 */
export function parseRange(header: string | null | undefined, size: number): ParsedRange {
  if (header == null) return { kind: 'none' };
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return { kind: 'none' };
  const specs = m[1]!.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (specs.length === 0) return { kind: 'none' };
  const ranges: ({ first: number; last: number | null } | { suffix: number })[] = [];
  for (const spec of specs) {
    const int = /^(\d+)\s*-\s*(\d*)$/.exec(spec);
    const suffix = /^-\s*(\d+)$/.exec(spec);
    if (int) {
      const first = Number(int[1]);
      const last = int[2] === '' ? null : Number(int[2]);
      if (last != null && last < first) return { kind: 'none' };
      ranges.push({ first, last });
    } else if (suffix) {
      ranges.push({ suffix: Number(suffix[1]) });
    } else {
      return { kind: 'none' };
    }
  }
  for (const r of ranges) {
    if ('suffix' in r) {
      if (r.suffix === 0) continue;
      if (size === 0) return { kind: 'empty' };
      return { kind: 'range', start: Math.max(0, size - r.suffix), end: size - 1 };
    }
    if (r.first < size) return { kind: 'range', start: r.first, end: Math.min(r.last ?? size - 1, size - 1) };
  }
  return { kind: 'unsatisfiable' };
}

function plain(status: number, message: string): RasterResponse {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }, body: streamOf(message) };
}

function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({ start: (c) => { c.enqueue(bytes); c.close(); } });
}

/**
 * A stream of bytes [start, end] of a file, opened lazily on first read (so an unread body holds no
 * file descriptor) and failing, rather than silently ending short, if the file changed meanwhile.
 */
function fileRangeStream(file: string, start: number, end: number, expect: { size: number; mtimeMs: number }): ReadableStream<Uint8Array> {
  let fh: FileHandle | null = null;
  let pos = start;
  const close = async (): Promise<void> => {
    const h = fh;
    fh = null;
    await h?.close().catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!fh) {
          fh = await open(file, 'r');
          const st = await fh.stat();
          if (st.size !== expect.size || st.mtimeMs !== expect.mtimeMs) throw new Error(`${file} changed while it was being served`);
        }
        const want = Math.min(READ_CHUNK, end + 1 - pos);
        const buf = new Uint8Array(want);
        const { bytesRead } = await fh.read(buf, 0, want, pos);
        if (bytesRead === 0) throw new Error(`${file} ended at byte ${pos}, before the announced ${end + 1}`);
        pos += bytesRead;
        controller.enqueue(bytesRead === want ? buf : buf.subarray(0, bytesRead));
        if (pos > end) {
          await close();
          controller.close();
        }
      } catch (e) {
        await close();
        controller.error(e);
      }
    },
    async cancel() {
      await close();
    },
  }, { highWaterMark: 0 });
}

/**
 * Answers one `swath-raster://<library-id>` request: 404 for anything that is not the id of a
 * library entry whose file exists (paths, `..`, encoded slashes included), 200 with Content-Length
 * and Accept-Ranges without Range, 206 with Content-Range for `bytes=a-b`, `bytes=a-` and
 * `bytes=-n`, 416 with an unsatisfied-range Content-Range ("bytes", asterisk, slash, size) when no range is satisfiable, 405 for
 * methods other than GET and HEAD. The body is a web ReadableStream; consume or cancel it.
 */
export async function serveLibraryFile(
  catalog: RasterFileLookup,
  url: string,
  headers: { range?: string | null },
  opts: { method?: string; signal?: AbortSignal } = {},
): Promise<RasterResponse> {
  throwIfAborted(opts.signal);
  const method = (opts.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') {
    const r = plain(405, 'Only GET and HEAD are supported.');
    r.headers.Allow = 'GET, HEAD';
    return r;
  }
  const id = libraryIdFromUrl(url);
  const entry = id ? catalog.get(id) : undefined;
  if (!entry) return plain(404, 'No such library raster.');
  if (entry.remote) return serveRemote(entry.remote, headers, method === 'HEAD', opts.signal);
  let st;
  try {
    st = await stat(entry.path);
  } catch {
    return plain(404, 'The library raster file is missing.');
  }
  if (!st.isFile()) return plain(404, 'The library raster file is missing.');
  const size = st.size;
  const base: Record<string, string> = {
    'Content-Type': 'image/tiff',
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    'Last-Modified': st.mtime.toUTCString(),
  };
  const range = parseRange(headers.range, size);
  const head = method === 'HEAD';
  const expect = { size, mtimeMs: st.mtimeMs };
  switch (range.kind) {
    case 'unsatisfiable':
      return { status: 416, headers: { ...base, 'Content-Range': `bytes */${size}`, 'Content-Length': '0' }, body: null };
    case 'range': {
      const length = range.end - range.start + 1;
      return {
        status: 206,
        headers: { ...base, 'Content-Range': `bytes ${range.start}-${range.end}/${size}`, 'Content-Length': String(length) },
        body: head ? null : fileRangeStream(entry.path, range.start, range.end, expect),
      };
    }
    default:
      return {
        status: 200,
        headers: { ...base, 'Content-Length': String(size) },
        body: head || size === 0 ? null : fileRangeStream(entry.path, 0, size - 1, expect),
      };
  }
}

/**
 * Answers for a remote raster as for a file: the size is the one main knows (the team catalog's
 * row), so ranges are parsed here and only the bytes asked for are read from the remote end; a
 * refused or failed remote read is a 502 naming the reason (the remote end's answer never reaches
 * the renderer as it is).
 */
async function serveRemote(remote: RemoteRasterFile, headers: { range?: string | null }, head: boolean, signal: AbortSignal | undefined): Promise<RasterResponse> {
  const size = remote.size;
  const base: Record<string, string> = { 'Content-Type': 'image/tiff', 'Accept-Ranges': 'bytes', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' };
  const range = parseRange(headers.range, size);
  if (range.kind === 'unsatisfiable') return { status: 416, headers: { ...base, 'Content-Range': `bytes */${size}`, 'Content-Length': '0' }, body: null };
  const [start, end, status] = range.kind === 'range' ? [range.start, range.end, 206] : [0, size - 1, 200];
  const out = { ...base, 'Content-Length': String(Math.max(0, end - start + 1)) } as Record<string, string>;
  if (status === 206) out['Content-Range'] = `bytes ${start}-${end}/${size}`;
  if (head || size === 0 || range.kind === 'empty') return { status, headers: out, body: null };
  try {
    return { status, headers: out, body: await remote.open(start, end, signal ?? new AbortController().signal) };
  } catch (e) {
    if (signal?.aborted) throw e;
    return plain(502, (e as Error).message);
  }
}
