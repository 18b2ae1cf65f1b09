import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAD_BYTES, isCloudOptimizedLayout, openGeoTiff, READ_WHOLE_BYTES, TiffFile } from '../../../main/geotiff';
import { readRasterMetadata } from '../../../main/library';
import * as hostile from '../../fixtures/hostile/tiffs';

let dir: string;
let big: string;
let small: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-tiff-file-'));
  big = path.join(dir, 'big.tif');
  writeFileSync(big, hostile.bigStripImage(640));
  small = path.join(dir, 'small.tif');
  writeFileSync(small, hostile.smallGeoImage());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** This process's descriptors open on this test's files (Linux: /proc/self/fd). */
const openFds = () => readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
  } catch {
    return false; // closed meanwhile
  }
}).length;
const onLinux = process.platform === 'linux';

describe('TiffFile', () => {
  it('holds a large file\'s head, reads the rest from the file and refuses reads past its end', async () => {
    const bytes = readFileSync(big);
    expect(bytes.length).toBeGreaterThan(READ_WHOLE_BYTES);
    const t = await TiffFile.open(big);
    try {
      expect(t.size).toBe(bytes.length);
      expect(t.whole).toBeNull();
      expect(t.head.length).toBe(HEAD_BYTES);
      const at = async (position: number, length: number) => {
        const view = await t.read(position, length);
        return Buffer.from(view.buffer, view.byteOffset, length);
      };
      expect(await at(0, 16)).toEqual(bytes.subarray(0, 16));
      expect(await at(HEAD_BYTES - 8, 16)).toEqual(bytes.subarray(HEAD_BYTES - 8, HEAD_BYTES + 8));
      expect(await at(bytes.length - 10, 10)).toEqual(bytes.subarray(bytes.length - 10));
      await expect(t.read(bytes.length - 10, 11)).rejects.toThrow(/points beyond the end of the file/);
      await expect(t.read(-1, 4)).rejects.toThrow(/points beyond the end of the file/);
    } finally {
      await t.close();
    }
    // Closed: what is in memory still reads, the file no more.
    expect(new Uint8Array((await t.read(0, 4)).buffer, 0, 4)).toEqual(new Uint8Array(bytes.subarray(0, 4)));
    await expect(t.read(HEAD_BYTES, 4)).rejects.toThrow(/closed/);
  });

  it('gives geotiff.js each slice as a copy of its own, and zeros past the end as its own file source does', async () => {
    const bytes = readFileSync(big);
    const t = await TiffFile.open(big);
    try {
      const source = t.source() as unknown as { fetch(s: { offset: number; length: number }[]): Promise<ArrayBuffer[]> };
      const [inHead, across, pastEnd] = await source.fetch([
        { offset: 8, length: 100 },
        { offset: HEAD_BYTES - 50, length: 100 },
        { offset: bytes.length - 4, length: 8 },
      ]);
      expect(Buffer.from(inHead!)).toEqual(bytes.subarray(8, 108));
      expect(Buffer.from(across!)).toEqual(bytes.subarray(HEAD_BYTES - 50, HEAD_BYTES + 50));
      expect([...new Uint8Array(pastEnd!)]).toEqual([...bytes.subarray(bytes.length - 4), 0, 0, 0, 0]);
      // A decoder may detach what it is given (transferred to a worker): the head stays whole.
      structuredClone(inHead, { transfer: [inHead!] });
      expect(Buffer.from((await source.fetch([{ offset: 8, length: 100 }]))[0]!)).toEqual(bytes.subarray(8, 108));
    } finally {
      await t.close();
    }
  });

  it('reads a small file whole and closes it at once', async () => {
    const t = await TiffFile.open(small);
    expect(t.whole).toEqual(new Uint8Array(readFileSync(small)));
    // Its descriptor is released without the caller's close (closing it was not awaited: wait for the state).
    if (onLinux) await expect.poll(openFds).toBe(0);
    await t.close();
  });
});

describe('a header read on one open file', () => {
  it('answers from the head and the file the same as from the whole file held in memory, and leaves no file open', async () => {
    const signal = new AbortController().signal;
    const fromFile = await readRasterMetadata(big, signal);
    const fromMemory = await readRasterMetadata(big, signal, new Uint8Array(readFileSync(big)));
    expect(fromFile).toEqual(fromMemory);
    expect(fromFile).toMatchObject({ width: 640, height: 640, epsg: 32633 });
    const opened = await openGeoTiff(big, signal);
    try {
      expect(opened.raw.whole).toBeNull();
      expect(await isCloudOptimizedLayout(big, opened.raw)).toBe(await isCloudOptimizedLayout(big));
    } finally {
      await opened.close();
    }
    // A refused file is closed too: a large download cut short (its tag table was at its end).
    const cut = path.join(dir, 'cut.tif');
    writeFileSync(cut, readFileSync(big).subarray(0, READ_WHOLE_BYTES + 1000));
    await expect(openGeoTiff(cut, signal)).rejects.toThrow(/0 x 0 pixels/);
    if (onLinux) await expect.poll(openFds).toBe(0);
  });
});
