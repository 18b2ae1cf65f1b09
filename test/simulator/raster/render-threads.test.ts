import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderThreadCount } from '../../../simulator/raster/render-threads.js';
import { writeGeoTiff } from '../../../simulator/raster/write.js';
import { bands, HAS_GDAL, request, tempDir } from './helpers.js';
import { execFileSync } from 'node:child_process';

let dir = '';
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A lon/lat triangle (its edge crosses blocks: partial masks) of about 1,000 x 1,100 px at 10 m: several chunks of the writer. */
const triangle = { type: 'Polygon' as const, coordinates: [[[15, 50], [15.14, 50], [15.07, 50.1], [15, 50]]] };

describe('full resolution rendered on the render threads', () => {
  it.each([
    ['INT16 reflectance bands', request({ aoi: triangle, epsg: 32633 })],
    ['UINT8 bands and indices', request({ aoi: triangle, epsg: 32633, dataType: 'UINT8', bands: bands('B8,[B8_B4],B11,[B3_B8]') })],
  ])('writes the same file as this thread: %s', async (_name, req) => {
    const here = join(dir, `here-${req.dataType}.tif`);
    const threaded = join(dir, `threaded-${req.dataType}.tif`);
    await writeGeoTiff(req, here, { threaded: false });
    await writeGeoTiff(req, threaded, { threaded: true });
    expect(renderThreadCount()).toBeGreaterThan(0);
    expect(sha(threaded)).toBe(sha(here));
    if (HAS_GDAL) {
      // Real landscape in it, as GDAL reads it: many distinct values, nodata outside the triangle.
      const stats = JSON.parse(execFileSync('gdalinfo', ['-json', '-stats', threaded], { encoding: 'utf8' })) as { bands: { minimum: number; maximum: number }[] };
      for (const b of stats.bands) expect(b.maximum).toBeGreaterThan(b.minimum);
    }
  });

  it('stops on abort and removes the partial file', async () => {
    const out = join(dir, 'aborted.tif');
    const ac = new AbortController();
    // Aborted once the first blocks are compressed (into the spool of blocks), while the threads render the next chunks.
    const spool = `${out}.blocks.part`;
    const poll = setInterval(() => {
      if (existsSync(spool) && statSync(spool).size > 0) ac.abort();
    }, 1);
    try {
      await expect(writeGeoTiff(request({ aoi: triangle, epsg: 32633 }), out, { signal: ac.signal, threaded: true })).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      clearInterval(poll);
    }
    expect(ac.signal.aborted).toBe(true);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.part`)).toBe(false);
    // The threads serve the next write.
    await writeGeoTiff(request({ aoi: triangle, epsg: 32633 }), out, { threaded: true });
    expect(existsSync(out)).toBe(true);
  });
});

describe('startRasterThreads', () => {
  // The demo service's process warms its writer up at start in a temp folder; a service closed
  // meanwhile exits before that write ends (the app quitting early, a test's short-lived service).
  it('leaves no warm-up folder behind when the process exits during the warm-up, nor when it ends', async () => {
    const tmp = await tempDir();
    const script = `
      import { readdirSync } from 'node:fs';
      const { startRasterThreads } = await import(${JSON.stringify(new URL('../../../simulator/raster/write.ts', import.meta.url).href)});
      const mode = process.argv.at(-1);
      const during = () => readdirSync(process.env.TMPDIR).some((n) => n.startsWith('swath-sim-warm-up-'));
      const warm = startRasterThreads();
      if (mode === 'during') {
        // Exits as soon as the warm-up's folder exists, before its write ends.
        const poll = setInterval(() => { if (during()) { clearInterval(poll); process.stdout.write('seen '); process.exit(0); } }, 1);
        void warm.then(() => { process.stdout.write('missed '); process.exit(0); });
      } else {
        await warm;
        process.stdout.write('done ');
        process.exit(0);
      }`;
    for (const mode of ['during', 'after']) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, mode], {
        env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8', timeout: 60_000,
      });
      expect(out, mode).toBe(mode === 'during' ? 'seen ' : 'done ');
      expect(readdirSync(tmp).filter((n) => n.startsWith('swath-sim-warm-up-')), mode).toEqual([]);
    }
    await rm(tmp, { recursive: true, force: true });
  });
});
