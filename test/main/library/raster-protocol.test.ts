import { appendFileSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { libraryIdFromUrl, parseRange, serveLibraryFile, type RasterResponse } from '../../../main/library/index.js';

const ID = '3f1c2a9e-8b7d-4c6e-9f00-123456789abc';
const EMPTY = '00000000-0000-4000-8000-000000000000';
const GONE = '11111111-1111-4111-8111-111111111111';
let dir: string;
let data: Buffer;
const entries = new Map<string, { path: string }>();
const catalog = { get: (id: string) => entries.get(id) };

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-raster-'));
  data = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  writeFileSync(path.join(dir, 'a.tif'), data);
  writeFileSync(path.join(dir, 'empty.tif'), '');
  entries.set(ID, { path: path.join(dir, 'a.tif') });
  entries.set(EMPTY, { path: path.join(dir, 'empty.tif') });
  entries.set(GONE, { path: path.join(dir, 'missing.tif') });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bodyOf(r: RasterResponse): Promise<Buffer | null> {
  if (!r.body) return null;
  return Buffer.from(await new Response(r.body).arrayBuffer());
}

const get = (range?: string, id = ID) => serveLibraryFile(catalog, `swath-raster://${id}`, range === undefined ? {} : { range });

describe('serveLibraryFile', () => {
  it('serves the whole file with Content-Length and Accept-Ranges when there is no Range', async () => {
    const r = await get();
    expect(r.status).toBe(200);
    expect(r.headers).toMatchObject({ 'Content-Length': '1000', 'Accept-Ranges': 'bytes', 'Content-Type': 'image/tiff' });
    expect(r.headers['Content-Range']).toBeUndefined();
    expect((await bodyOf(r))!.equals(data)).toBe(true);
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=990-', 990, 999],
    ['bytes=-10', 990, 999],
    ['bytes=-2000', 0, 999],
    ['bytes=999-999', 999, 999],
    ['bytes=999-', 999, 999],
    ['bytes=-1', 999, 999],
    ['bytes=500-100000', 500, 999],
    ['bytes=0-0', 0, 0],
    ['BYTES = 10-19', 10, 19],
    ['bytes=0-9, 20-29', 0, 9],
    ['bytes=5000-6000, 7-8', 7, 8],
  ])('answers %j with 206 %i-%i', async (range, start, end) => {
    const r = await get(range);
    expect(r.status).toBe(206);
    expect(r.headers['Content-Range']).toBe(`bytes ${start}-${end}/1000`);
    expect(r.headers['Content-Length']).toBe(String(end - start + 1));
    expect((await bodyOf(r))!.equals(data.subarray(start, end + 1))).toBe(true);
  });

  it.each(['bytes=1000-', 'bytes=1000-1000', 'bytes=5000-6000', 'bytes=-0', 'bytes=1000-,2000-'])('answers %j with 416 and bytes */size', async (range) => {
    const r = await get(range);
    expect(r.status).toBe(416);
    expect(r.headers['Content-Range']).toBe('bytes */1000');
    expect(r.body).toBeNull();
  });

  it.each(['bytes=abc', 'bytes=5-2', 'items=0-1', 'bytes=', '0-10', 'bytes=1-2-3', 'bytes=-', 'bytes=0-1,x', 'bytes=1.5-2'])(
    'ignores the malformed Range %j (200, whole file)',
    async (range) => {
      const r = await get(range);
      expect(r.status).toBe(200);
      expect(r.headers['Content-Length']).toBe('1000');
      expect((await bodyOf(r))!.length).toBe(1000);
    },
  );

  it('handles an empty file: 200 with length 0, 416 for any int range, 200 for a suffix range', async () => {
    const plain = await get(undefined, EMPTY);
    expect(plain).toMatchObject({ status: 200, body: null });
    expect(plain.headers['Content-Length']).toBe('0');
    const first = await get('bytes=0-0', EMPTY);
    expect(first.status).toBe(416);
    expect(first.headers['Content-Range']).toBe('bytes */0');
    const suffix = await get('bytes=-5', EMPTY);
    expect(suffix.status).toBe(200);
    expect(suffix.headers['Content-Length']).toBe('0');
  });

  it('answers HEAD with headers only', async () => {
    const r = await serveLibraryFile(catalog, `swath-raster://${ID}`, { range: 'bytes=0-9' }, { method: 'HEAD' });
    expect(r.status).toBe(206);
    expect(r.headers['Content-Length']).toBe('10');
    expect(r.body).toBeNull();
    const post = await serveLibraryFile(catalog, `swath-raster://${ID}`, {}, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.Allow).toBe('GET, HEAD');
  });

  it.each([
    'swath-raster://nope',
    'swath-raster://../../etc/passwd',
    'swath-raster://..%2F..%2Fetc%2Fpasswd',
    `swath-raster://${ID}/../${ID}`,
    `swath-raster://${ID}%2F..`,
    `swath-raster://${ID}/x`,
    `swath-raster://%2e%2e`,
    'swath-raster:///etc/passwd',
    `swath-raster://${encodeURIComponent('/etc/passwd')}`,
    'swath-raster://C:\\Windows\\win.ini',
    'file:///etc/passwd',
    `file://${ID}`,
    `http://${ID}`,
    'swath-raster://',
    '',
  ])('refuses %j with 404', async (url) => {
    const r = await serveLibraryFile(catalog, url, {});
    expect(r.status).toBe(404);
    expect(r.headers['Content-Length']).toBeUndefined();
  });

  it('refuses the path of a library file used as the id', async () => {
    const r = await serveLibraryFile(catalog, `swath-raster://${path.join(dir, 'a.tif')}`, {});
    expect(r.status).toBe(404);
  });

  it('answers 404 when the entry exists but its file is gone', async () => {
    expect((await get(undefined, GONE)).status).toBe(404);
  });

  it('accepts the trailing slash and query Electron may add', async () => {
    expect((await serveLibraryFile(catalog, `swath-raster://${ID}/`, {})).status).toBe(200);
    expect((await serveLibraryFile(catalog, `swath-raster://${ID}?v=2`, { range: 'bytes=0-1' })).status).toBe(206);
    expect((await serveLibraryFile(catalog, `SWATH-RASTER://${ID}`, {})).status).toBe(200);
  });

  it('fails the body rather than ending short when the file changes under it', async () => {
    const f = path.join(dir, 'changing.tif');
    writeFileSync(f, data);
    const id = '22222222-2222-4222-8222-222222222222';
    entries.set(id, { path: f });
    const r = await get(undefined, id);
    appendFileSync(f, 'more');
    await expect(bodyOf(r)).rejects.toThrow(/changed while it was being served/);
  });

  // Counts this process's descriptors open on the file, through /proc/self/fd (Linux only).
  it.skipIf(process.platform !== 'linux')('opens nothing until the body is read, and can be cancelled (descriptors counted in /proc/self/fd)', async () => {
    // More than one read (1 MiB) long, so the file is still open after the first read.
    const f = path.join(dir, 'long.tif');
    writeFileSync(f, Buffer.alloc(3 * 1024 * 1024, 7));
    const real = realpathSync(f);
    const id = '33333333-3333-4333-8333-333333333333';
    entries.set(id, { path: f });
    const openOnFile = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === real;
        } catch {
          return false; // closed meanwhile (the listing's own descriptor)
        }
      }).length;
    expect(openOnFile()).toBe(0);
    const r = await get(undefined, id);
    expect(r.status).toBe(200);
    expect(openOnFile()).toBe(0);
    const reader = r.body!.getReader();
    const first = await reader.read();
    expect(first.value!.length).toBe(1024 * 1024);
    expect(openOnFile()).toBe(1);
    await reader.cancel();
    expect(openOnFile()).toBe(0);
  });
});

describe('libraryIdFromUrl and parseRange', () => {
  it('extracts only id-shaped hosts', () => {
    expect(libraryIdFromUrl(`swath-raster://${ID}`)).toBe(ID);
    expect(libraryIdFromUrl(`swath-raster://${ID}#frag`)).toBe(ID);
    expect(libraryIdFromUrl('swath-raster://a.b')).toBeNull();
  });

  it('reports the first satisfiable range and absent headers', () => {
    expect(parseRange(undefined, 10)).toEqual({ kind: 'none' });
    expect(parseRange('bytes=20-30,-3', 10)).toEqual({ kind: 'range', start: 7, end: 9 });
    expect(parseRange('bytes=99999999999999999999-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-99999999999999999999', 10)).toEqual({ kind: 'range', start: 0, end: 9 });
  });
});
