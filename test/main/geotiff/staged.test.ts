import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gdalMetadataXml, stagePyramid, writePyramid, type PixelSource, type PyramidImage } from '../../../main/geotiff/index.js';
import type { ByteReader } from '../../../main/shared/file-io.js';
import { removeTempDirs, tempDir } from '../downloads/batch/helpers.js';

afterAll(removeTempDirs);

function image(width: number, height: number, over: Partial<PyramidImage> = {}): PyramidImage {
  return {
    width, height, bands: 2, dataType: 'INT16',
    geo: { epsg: 32633, geographic: false, originX: 500000, originY: 5800000, pixelSize: 10 },
    metadataXml: gdalMetadataXml([{ name: 'IMAGE_DATE', value: '20260101', sample: null, role: null }]),
    ...over,
  };
}

/** Samples that vary from pixel to pixel, with some nodata. */
const source: PixelSource = async (rect, out, _signal, rowStride) => {
  for (let y = 0; y < rect.height; y++) {
    for (let x = 0; x < rect.width; x++) {
      const gx = rect.x + x;
      const gy = rect.y + y;
      for (let b = 0; b < 2; b++) out[y * rowStride + x * 2 + b] = (gx + gy) % 89 === 0 ? -32768 : ((gx * 13 + gy * 7 + b * 500) % 9000) + 1;
    }
  }
};

/** Bytes [from, to) of `reader`, in reads of `size` (which need not fall on its pieces' edges). */
async function readRange(reader: ByteReader, from: number, to: number, size: number): Promise<Buffer> {
  const out = Buffer.alloc(to - from);
  for (let at = from; at < to; at += size) await reader.read(out.subarray(at - from, Math.min(to, at + size) - from), at);
  return out;
}

const options = () => ({ signal: AbortSignal.timeout(60_000), chunkBytes: 512 * 512 * 4 });

describe('stagePyramid', () => {
  // Overviews compressed (blocks spooled, then copied into the COG's order), one level compressed (straight to the part), uncompressed.
  // The temporaries a reader reads besides the part (which becomes the file).
  const kinds: [string, PyramidImage, string[]][] = [
    ['compressed with overviews', image(1300, 1100), ['staged.tif.blocks.part']],
    ['compressed, one level', image(300, 200), []],
    ['uncompressed with overviews', image(1300, 1100, { compress: false }), []],
  ];
  for (const [kind, img, temps] of kinds) {
    it(`${kind}: a reader gets the bytes the committed file holds, and reads to the end after the commit`, async () => {
      const dir = await tempDir();
      const reference = path.join(dir, 'reference.tif');
      await writePyramid(reference, img, source, options());
      const want = readFileSync(reference);

      const file = path.join(dir, 'staged.tif');
      const staged = await stagePyramid(file, img, source, options());
      expect(staged.bytes).toBe(want.length);
      expect(existsSync(file)).toBe(false);
      const first = staged.reader()!;
      const second = staged.reader()!;
      expect(first.bytes).toBe(want.length);
      // The commit ends while the readers are open: the file is in place, its temporaries stay for them.
      await staged.commit();
      expect(readFileSync(file).equals(want)).toBe(true);
      expect((await readRange(first, 0, want.length, 65_536)).equals(want)).toBe(true);
      // Reads of any size from anywhere: across the header's end and the spooled runs' edges.
      expect((await readRange(second, 3, want.length - 5, 100_003)).equals(want.subarray(3, want.length - 5))).toBe(true);
      await expect(second.read(Buffer.alloc(10), want.length - 5)).rejects.toThrow(RangeError);
      await first.close();
      expect(readdirSync(dir).sort()).toEqual(['reference.tif', 'staged.tif', ...temps]);
      await second.close();
      await expect(second.read(Buffer.alloc(1), 0)).rejects.toThrow(/closed/);
      // Once the last reader is gone, so are the temporaries; a new reader reads the file where it is.
      expect(readdirSync(dir).sort()).toEqual(['reference.tif', 'staged.tif']);
      expect(staged.reader()).toBeNull();
    });
  }

  it('commits to another path; a reader closed during the commit keeps the temporaries until the commit ends', async () => {
    const dir = await tempDir();
    const staged = await stagePyramid(path.join(dir, 'a.tif'), image(1300, 1100), source, options());
    const reader = staged.reader()!;
    const committed = staged.commit({ to: path.join(dir, 'b.tif'), durable: 'file' });
    await reader.close();
    await committed;
    expect(readdirSync(dir)).toEqual(['b.tif']);
  });

  it('firstReaders waits for the readers open at the next turn, not for later ones, and at most its bound', async () => {
    const dir = await tempDir();
    const staged = await stagePyramid(path.join(dir, 'a.tif'), image(300, 200), source, options());
    await staged.firstReaders(60_000);
    const first = staged.reader()!;
    const waiting = staged.firstReaders(60_000);
    let done = false;
    void waiting.then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    const later = staged.reader()!;
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    await first.close();
    await waiting;
    // A reader that never closes holds it up only until the bound.
    await staged.firstReaders(20);
    await later.close();
    await staged.discard();
    await staged.gone;
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a reader closed during a read lets the read end first', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.tif');
    const staged = await stagePyramid(file, image(1300, 1100), source, options());
    await staged.commit();
    const want = readFileSync(file);
    // The same image again, dropped while its reader reads.
    const again = await stagePyramid(path.join(dir, 'b.tif'), image(1300, 1100), source, options());
    const late = again.reader()!;
    const discarded = again.discard();
    const into = Buffer.alloc(again.bytes);
    const reading = late.read(into, 0);
    const closed = late.close();
    // A second close is the first one: it too ends after the read.
    expect(late.close()).toBe(closed);
    await reading;
    expect(into.equals(want)).toBe(true);
    await closed;
    await discarded;
    await again.gone;
    expect(readdirSync(dir)).toEqual(['a.tif']);
  });

  it('discard removes the part and the temporaries; an aborted commit leaves nothing', async () => {
    const dir = await tempDir();
    const staged = await stagePyramid(path.join(dir, 'a.tif'), image(1300, 1100), source, options());
    expect(readdirSync(dir).sort()).toEqual(['a.tif.blocks.part', 'a.tif.part']);
    await staged.discard();
    expect(readdirSync(dir)).toEqual([]);

    const again = await stagePyramid(path.join(dir, 'b.tif'), image(1300, 1100), source, options());
    await expect(again.commit({ signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(readdirSync(dir)).toEqual([]);
    await expect(again.commit()).rejects.toThrow(/twice/);
  });

  it('an aborted write leaves no file and no temporaries', async () => {
    const dir = await tempDir();
    const ac = new AbortController();
    let chunks = 0;
    const aborting: PixelSource = async (rect, out, signal, rowStride) => {
      if (++chunks === 3) ac.abort();
      await source(rect, out, signal, rowStride);
    };
    await expect(stagePyramid(path.join(dir, 'a.tif'), image(1300, 1100), aborting, { ...options(), signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(readdirSync(dir)).toEqual([]);
  });
});
