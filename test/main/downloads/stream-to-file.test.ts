import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { open } from 'node:fs/promises';
import {
  DownloadError, downloadToFile, KEEP_CONTENT_BYTES, publishPartFile, reservePartFile, verifyGeoTiff, writeBody,
} from '../../../main/downloads/index.js';
import { chunked, streamOf, tinyGeoTiff } from './fixtures.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-stream-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const never = () => new AbortController().signal;

describe('downloadToFile', () => {
  it('streams, verifies and publishes under the final name with the right sha256', async () => {
    const tif = tinyGeoTiff();
    const seen: number[] = [];
    let part = '';
    const out = await downloadToFile({
      body: streamOf(chunked(tif, 7)), dir, fileName: 'a.tif', contentLength: tif.length, signal: never(),
      onPart: (p) => { part = p; expect(readdirSync(dir)).toEqual(['a.tif.part']); },
      onProgress: (b) => seen.push(b),
    });
    expect(out).toMatchObject({ path: path.join(dir, 'a.tif'), bytes: tif.length, sha256: sha(tif) });
    // A small file's bytes come back with it, for the library to read its header from.
    expect(Buffer.from(out.content!).equals(tif)).toBe(true);
    expect(part).toBe(path.join(dir, 'a.tif.part'));
    expect(readdirSync(dir)).toEqual(['a.tif']);
    expect(readFileSync(out.path).equals(tif)).toBe(true);
    expect(seen.at(-1)).toBe(tif.length);
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
  });

  it('treats a body shorter than Content-Length as a transient failure and leaves nothing behind', async () => {
    const tif = tinyGeoTiff();
    const p = downloadToFile({ body: streamOf([tif.subarray(0, 1000)]), dir, fileName: 'a.tif', contentLength: tif.length, signal: never() });
    await expect(p).rejects.toMatchObject({ kind: 'transient', message: expect.stringMatching(/ended after 1000 of 2536 bytes/) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('treats a stream error (connection reset) as transient and removes the .part', async () => {
    const tif = tinyGeoTiff();
    const body = streamOf([tif.subarray(0, 500)], { failWith: new TypeError('terminated') });
    await expect(downloadToFile({ body, dir, fileName: 'a.tif', contentLength: tif.length, signal: never() }))
      .rejects.toMatchObject({ kind: 'transient', message: expect.stringMatching(/interrupted after 500 bytes: terminated/) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('rejects more bytes than announced', async () => {
    const tif = tinyGeoTiff();
    await expect(downloadToFile({ body: streamOf([tif, tif]), dir, fileName: 'a.tif', contentLength: tif.length, signal: never() }))
      .rejects.toMatchObject({ kind: 'transient', message: expect.stringMatching(/more than the announced/) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('catches truncation without Content-Length through the GeoTIFF block table', async () => {
    const tif = tinyGeoTiff();
    await expect(downloadToFile({ body: streamOf([tif.subarray(0, tif.length - 10)]), dir, fileName: 'a.tif', contentLength: null, signal: never() }))
      .rejects.toMatchObject({ kind: 'transient', message: expect.stringMatching(/not a readable GeoTIFF: block 0 of image 0 ends at byte 2536/) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a body that is not a GeoTIFF', async () => {
    const html = Buffer.from('<html>proxy login</html>');
    await expect(downloadToFile({ body: streamOf([html]), dir, fileName: 'a.tif', contentLength: html.length, signal: never() }))
      .rejects.toMatchObject({ kind: 'transient', message: expect.stringMatching(/a\.tif\.part is not a readable GeoTIFF/) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops on abort and removes the .part', async () => {
    const tif = tinyGeoTiff();
    const ac = new AbortController();
    const p = downloadToFile({
      body: streamOf(chunked(tif, 50), { delayMs: 5 }), dir, fileName: 'a.tif', contentLength: tif.length, signal: ac.signal,
      onProgress: (b) => { if (b > 500) ac.abort(new Error('user cancelled')); },
    });
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('abandons a transfer that stalls (connection open, no data) as transient', async () => {
    const tif = tinyGeoTiff();
    const hanging = new ReadableStream<Uint8Array>({
      start(c) { c.enqueue(new Uint8Array(tif.subarray(0, 100))); },
    });
    // Without the stall timer this never settles: the stream neither ends nor errors.
    await expect(downloadToFile({ body: hanging, dir, fileName: 'a.tif', contentLength: tif.length, signal: never(), stallTimeoutMs: 200 }))
      .rejects.toMatchObject({ kind: 'transient', message: expect.stringMatching(/stalled: no data for 0 s after 100 bytes/) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('gives 20 concurrent downloads of the same name 20 distinct files, overwriting none', async () => {
    writeFileSync(path.join(dir, 'same.tif'), 'precious');
    const tifs = Array.from({ length: 20 }, (_, i) => tinyGeoTiff({ seed: i + 1 }));
    const outs = await Promise.all(tifs.map((t) => downloadToFile({
      body: streamOf(chunked(t, 3), { delayMs: 1 }), dir, fileName: 'same.tif', contentLength: t.length, signal: never(),
    })));
    const names = outs.map((o) => path.basename(o.path));
    expect(new Set(names).size).toBe(20);
    expect(names).not.toContain('same.tif');
    expect(readFileSync(path.join(dir, 'same.tif'), 'utf8')).toBe('precious');
    outs.forEach((o, i) => expect(readFileSync(o.path).equals(tifs[i]!)).toBe(true));
    expect(readdirSync(dir).filter((n) => n.endsWith('.part'))).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['same.tif', ...Array.from({ length: 20 }, (_, i) => `same (${i + 1}).tif`)].sort());
  });
});

describe('writeBody', () => {
  const write = async (body: Buffer) => {
    const fh = await open(path.join(dir, 'w.part'), 'w');
    try {
      return await writeBody(streamOf(chunked(body, 5)), fh, { contentLength: body.length, signal: never(), label: 'w.part', hash: false });
    } finally {
      await fh.close();
    }
  };

  it('keeps the bytes of a body up to KEEP_CONTENT_BYTES and none of a larger one', async () => {
    const body = Buffer.alloc(KEEP_CONTENT_BYTES, 0);
    for (let i = 0; i < body.length; i++) body[i] = (i * 31) & 255;
    const small = await write(body);
    expect(small.bytes).toBe(KEEP_CONTENT_BYTES);
    expect(Buffer.from(small.content!).equals(body)).toBe(true);
    expect(readFileSync(path.join(dir, 'w.part')).equals(body)).toBe(true);

    const large = Buffer.concat([body, Buffer.from([7])]);
    const big = await write(large);
    expect(big).toEqual({ bytes: KEEP_CONTENT_BYTES + 1, sha256: null, content: null });
    expect(readFileSync(path.join(dir, 'w.part')).equals(large)).toBe(true);
  });
});

describe('reservePartFile and publishPartFile', () => {
  it('skips names whose final file or .part already exists', async () => {
    writeFileSync(path.join(dir, 'x.tif'), '1');
    writeFileSync(path.join(dir, 'x (1).tif.part'), '2');
    const r = await reservePartFile(dir, 'x.tif', never());
    await r.handle.close();
    expect(path.basename(r.partPath)).toBe('x (2).tif.part');
    expect(path.basename(r.finalPath)).toBe('x (2).tif');
  });

  it('creates a missing target folder', async () => {
    const sub = path.join(dir, 'a', 'b');
    const r = await reservePartFile(sub, 'x.tif', never());
    await r.handle.close();
    expect(readdirSync(sub)).toEqual(['x.tif.part']);
  });

  it('never replaces a file that appeared while downloading', async () => {
    const r = await reservePartFile(dir, 'x.tif', never());
    await r.handle.writeFile('new');
    await r.handle.close();
    writeFileSync(path.join(dir, 'x.tif'), 'someone else');
    const final = await publishPartFile(r.partPath, r.finalPath, never());
    expect(path.basename(final)).toBe('x (1).tif');
    expect(readFileSync(path.join(dir, 'x.tif'), 'utf8')).toBe('someone else');
    expect(readFileSync(final, 'utf8')).toBe('new');
    expect(readdirSync(dir).sort()).toEqual(['x (1).tif', 'x.tif']);
  });
});

describe('verifyGeoTiff', () => {
  it('accepts a complete file and names the file and size mismatch otherwise', async () => {
    const f = path.join(dir, 'v.tif');
    writeFileSync(f, tinyGeoTiff());
    await verifyGeoTiff(f, 2536, never());
    await expect(verifyGeoTiff(f, 3000, never())).rejects.toThrow(DownloadError);
    await expect(verifyGeoTiff(f, 3000, never())).rejects.toThrow(`${f} has 2536 bytes but the server announced 3000.`);
  });

  it('reads the bytes the writer kept only when they are as long as the file', async () => {
    const tif = tinyGeoTiff();
    const f = path.join(dir, 'v.tif');
    writeFileSync(f, tif);
    await verifyGeoTiff(f, null, never(), tif);
    // A file shorter than what was kept (cut on the disk): the file is what counts.
    writeFileSync(f, tif.subarray(0, tif.length - 10));
    await expect(verifyGeoTiff(f, null, never(), tif)).rejects.toThrow(/block 0 of image 0 ends at byte 2536, past the end of the file \(2526\)/);
  });
});
