import { copyFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBlocksInFile, isCloudOptimizedLayout, metadataBySample, metadataOf, openGeoTiff, parseGdalMetadata, READ_WHOLE_BYTES } from '../../../main/geotiff';
import { fixturePath } from '../../fixtures/rasters';
import * as hostile from '../../fixtures/hostile/tiffs';
import { startTestApp, type TestApp } from './helpers.js';

// One small TIFF must not freeze main or fill its memory. Every file is generated
// here (the 1.1 MB one is never committed) and must be refused with an error naming the problem,
// while what the library already holds stays.

/** Hostile TIFF, and the error library:import must answer (null: a valid file that is accepted). */
const CASES: [name: string, make: () => Buffer, answer: RegExp | null][] = [
  ['samples-65535', hostile.samples65535, /SamplesPerPixel is 65535; Swath reads 1 to 256 bands/],
  ['huge-dimensions', hostile.hugeDimensions, /width x height x bands is 1048576 x 1048576 x 1 = \d+ samples; Swath reads at most 4294967296/],
  ['truncated', hostile.truncated, /not a readable GeoTIFF/],
  ['cyclic-ifd', hostile.cyclicIfd, /the IFD chain is cyclic/],
  ['zero-size-tiles', hostile.zeroSizeTiles, /a tile or strip is 0 x 0 pixels; both must be at least 1/],
  ['big-endian', () => hostile.smallImage(false), null],
];

describe('hostile TIFFs through library import (browser host)', () => {
  let a: TestApp;
  let files: string;
  let kept: { id: string };
  beforeAll(async () => {
    a = await startTestApp();
    files = path.join(a.dir, 'hostile');
    mkdirSync(files);
    const good = path.join(files, 'good.tif');
    copyFileSync(fixturePath('utm33n-cog'), good);
    kept = (await a.call('library:import', { paths: [good] })).data.entries[0];
  });
  afterAll(() => a.close());

  it.each(CASES)('%s gets its answer and the library keeps what it had', async (name, make, answer) => {
    const file = path.join(files, `${name}.tif`);
    writeFileSync(file, make());
    const res = await a.call('library:import', { paths: [file] });
    if (answer) {
      expect(res).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringMatching(answer) } });
      expect(res.error.message).toContain(file);
    } else {
      expect(res.ok).toBe(true);
      expect(res.data.entries[0]).toMatchObject({ width: 16, height: 16 });
    }
    const entries = (await a.call('library:query', { limit: 500 })).data.entries as { id: string }[];
    expect(entries.some((e) => e.id === kept.id)).toBe(true);
  });
});

describe('decoding bounds', () => {
  let dir: string;
  let a: TestApp;
  beforeAll(async () => {
    a = await startTestApp();
    dir = a.dir;
  });
  afterAll(() => a.close());

  it('a deflate bomb (64 KiB tile inflating to 64 MiB) fails at its declared tile size instead of inflating', async () => {
    const file = path.join(dir, 'bomb.tif');
    writeFileSync(file, hostile.deflateBomb());
    const open = await openGeoTiff(file, new AbortController().signal);
    try {
      await expect(open.image.readRasters({ interleave: true })).rejects.toThrow(/inflates to more than its declared 65536 bytes \(256 x 256 pixels\)/);
    } finally {
      await open.close();
    }
  });

  it('reads a small file whole at once and a large one from the file, with the same answers and the same checks', async () => {
    const signal = new AbortController().signal;
    const small = path.join(dir, 'small.tif');
    writeFileSync(small, hostile.smallGeoImage());
    const big = path.join(dir, 'big.tif');
    writeFileSync(big, hostile.bigStripImage(640));
    expect(statSync(big).size).toBeGreaterThan(READ_WHOLE_BYTES);
    const a = await openGeoTiff(small, signal);
    const b = await openGeoTiff(big, signal);
    try {
      expect(a.raw.whole?.length).toBe(statSync(small).size);
      expect(b.raw.whole).toBeNull();
      expect(a.header).toMatchObject({ width: 16, height: 16, epsg: 32633, imageCount: 1 });
      expect(b.header).toMatchObject({ width: 640, height: 640, epsg: 32633, imageCount: 1 });
      // The layout read from the bytes held and from the file.
      expect(await isCloudOptimizedLayout(small, a.raw)).toBe(await isCloudOptimizedLayout(small));
      expect(Array.from((await a.image.readRasters({ window: [0, 0, 4, 1] }))[0] as Uint8Array)).toEqual([0, 1, 2, 3]);
    } finally {
      await a.close();
      await b.close();
    }
    // A strip past the end is refused from the bytes held as from the file.
    const past = path.join(dir, 'past.tif');
    writeFileSync(past, hostile.offsetPastEof());
    await expect(openGeoTiff(past, signal)).rejects.toThrow(/lies past the end of the file/);
    await expect(checkBlocksInFile(past, 1)).rejects.toThrow(/lies past the end of the file/);
  });

  it('deflate tiles within their size still decode (GDAL fixture with predictor 2)', async () => {
    const open = await openGeoTiff(fixturePath('utm33n-cog'), new AbortController().signal);
    try {
      const data = (await open.image.readRasters({ window: [0, 0, 200, 200], interleave: true })) as unknown as ArrayLike<number>;
      expect(data.length).toBe(200 * 200 * open.header.bands);
    } finally {
      await open.close();
    }
  });
});

describe('GDAL metadata per band, in one pass', () => {
  it('gives the same records as metadataOf for the dataset and every band', () => {
    const items = parseGdalMetadata('<GDALMetadata><Item name="A">1</Item><Item name="DESCRIPTION" sample="0">B4</Item><Item name="DESCRIPTION" sample="2">B2</Item><Item name="DESCRIPTION" sample="0">B4b</Item></GDALMetadata>');
    const by = metadataBySample(items);
    expect(by.dataset).toEqual(metadataOf(items, null));
    for (const s of [0, 1, 2, 3]) expect(by.band(s)).toEqual(metadataOf(items, s));
  });
});
