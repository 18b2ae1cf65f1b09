// @vitest-environment jsdom
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createPinia, setActivePinia } from 'pinia';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveLibraryFile } from '../../../../main/library/raster-protocol';
import type { RequestOf, Result } from '../../../../preload/contract';
import { writeTestTiff } from '../../../main/library/decimate-helpers';
import { item } from './entries';
import { queryEntries } from './fake-library';

// The library store's thumbnail of a large file without overviews, with the real GeoTIFF reader
// over HTTP Range requests (served by main's raster protocol code on loopback): main is asked for a
// small quick look, and the thumbnail is read from that, not from the file itself.

// jsdom has no canvas to encode a PNG: the thumbnail's pixels are kept as they are handed over.
const encoded = vi.hoisted(() => ({ images: [] as { width: number; height: number; rgba: Uint8ClampedArray }[] }));
vi.mock('../../../../renderer/src/platform/raster/render-sample', async (orig) => ({
  ...(await orig<typeof import('../../../../renderer/src/platform/raster/render-sample')>()),
  rgbaToDataUrl: (rgba: Uint8ClampedArray, width: number, height: number) => {
    encoded.images.push({ width, height, rgba: new Uint8ClampedArray(rgba) });
    return `data:test;${width}x${height}`;
  },
}));

const { useLibraryStore } = await import('../../../../renderer/src/features/library/stores/library');

let dir: string;
let server: http.Server;
const files = new Map<string, string>();
/** Bytes served per raster id. */
const served = new Map<string, number>();

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-thumb-'));
  // 2,400 x 2,000 px in one strip, no overviews: a thumbnail read from it would read all of its 14 MB.
  const big = path.join(dir, 'big.tif');
  writeTestTiff(big, { width: 2400, height: 2000, bands: 3, dataType: 'UINT8', nodata: 0 });
  // The quick look main would make of it: 256 px wide, every band one value.
  const quick = path.join(dir, 'quick.tif');
  writeTestTiff(quick, { width: 256, height: 213, bands: 3, dataType: 'UINT8', nodata: 0, value: (_x, _y, b) => 60 + 60 * b });
  files.set('a', big);
  files.set('qlk-a', quick);
  server = http.createServer((req, res) => {
    const id = decodeURIComponent(req.url!.replace(/^\/__swath\/raster\//, ''));
    void serveLibraryFile({ get: (i) => (files.has(i) ? { path: files.get(i)! } : undefined) }, `swath-raster://${id}`, { range: req.headers.range }, { method: req.method }).then((a) => {
      served.set(id, (served.get(id) ?? 0) + Number(a.headers['Content-Length'] ?? 0));
      res.writeHead(a.status, a.headers);
      if (a.body) Readable.fromWeb(a.body as never).pipe(res);
      else res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // The page's origin is the loopback server, as under the browser host.
  (globalThis as unknown as { jsdom: { reconfigure(o: { url: string }): void } }).jsdom.reconfigure({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe('library thumbnails', () => {
  it('thumbnails a large file without overviews from a small quick look made by main, not by reading it whole', async () => {
    setActivePinia(createPinia());
    const ok = <T>(data: T): Result<T> => ({ ok: true, data });
    const libraryPreview = vi.fn(async ({ id }: { id: string; quickLook?: number }) => ok({ id, state: 'quick-look', rasterId: `qlk-${id}`, reason: 'striped', reused: false, buildMs: 20 }));
    window.swath = {
      libraryQuery: vi.fn(async (q: RequestOf<'library:query'>) => ok(queryEntries([item({ id: 'a', width: 2400, height: 2000 })], q))),
      libraryPreview,
      on: vi.fn(() => () => undefined),
      cancel: vi.fn(),
    } as never;
    const lib = useLibraryStore();
    await lib.start();
    // A row drawn in the list asks for its thumbnail.
    lib.wantThumbnail(lib.rowAt(0)!);
    await vi.waitFor(() => expect(Object.values(lib.thumbnails)).toHaveLength(1), { timeout: 20_000 });
    expect(libraryPreview).toHaveBeenCalledWith({ id: 'a', quickLook: 256 });
    // The picture is the quick look's: its one colour per band, stretched, over the whole thumbnail.
    expect(encoded.images).toHaveLength(1);
    const [image] = encoded.images;
    expect(Object.values(lib.thumbnails)[0]).toBe(`data:test;${image!.width}x${image!.height}`);
    expect(Math.max(image!.width, image!.height)).toBeLessThanOrEqual(96);
    const colours = new Set<string>();
    for (let i = 0; i < image!.rgba.length; i += 4) if (image!.rgba[i + 3]) colours.add(image!.rgba.slice(i, i + 3).join());
    expect(colours.size).toBe(1);
    // Of the large file only its header was read.
    expect(served.get('qlk-a')).toBeGreaterThan(0);
    expect(served.get('a')).toBeGreaterThan(0);
    expect(served.get('a')!).toBeLessThan(statSync(files.get('a')!).size / 20);
  });
});
