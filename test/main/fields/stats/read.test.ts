/**
 * The block reader of the statistics run gives, for tiled and striped, compressed and uncompressed
 * files, exactly the values main/analysis readValues gives through geotiff.js's own readRasters;
 * and for files GDAL writes in each sample type and predictor the reader decodes itself; asked for
 * some column runs of each row only, the same values there.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readValues } from '../../../../main/analysis/compute';
import { readPlanFor, parseIndexExpression, type IndexSpec, type ReadPlan } from '../../../../main/analysis/expression';
import { readWindow } from '../../../../main/fields/stats/read';
import { openGeoTiff, type OpenGeoTiff } from '../../../../main/geotiff';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dirs';
import { NODATA, writeBands, type TestGrid } from './support';

const GRID: TestGrid = { epsg: 32633, originX: 390000, originY: 5820000, pixelSize: 10, width: 700, height: 600 };
const dn = (b: number, r: number, c: number) => ((r * 13 + c * 7) % 50 === 0 ? NODATA : b === 1 && (r + c) % 97 === 0 ? -(1000 + c) : 500 + ((r * 31 + c * 17 + b * 101) % 4000));

afterAll(() => removeTempDirs());

/**
 * readWindow asked for some runs of each row of `win` (rows without any, runs across block edges,
 * a run of one pixel) computes those values as readValues gives them and leaves the others as
 * they were in its buffer.
 */
async function expectWantedRuns(open: OpenGeoTiff, plan: ReadPlan, win: [number, number, number, number], ref: Float64Array): Promise<void> {
  const [x0, y0, x1, y1] = win;
  const w = x1 - x0;
  const rowStart = [0];
  const runs: number[] = [];
  for (let y = y0; y < y1; y++) {
    if (y % 5 !== 0) {
      for (let x = x0 + (((y * 7) % 11) % w); x < x1; x += 40 + (y % 13)) runs.push(x, Math.min(x1, x + 1 + ((x + y) % 37)));
    }
    rowStart.push(runs.length / 2);
  }
  const into = new Float64Array(w * (y1 - y0)).fill(-7);
  const got = await readWindow(open, plan, win, new AbortController().signal, 256, into, { rowStart: Int32Array.from(rowStart), runs: Int32Array.from(runs) });
  const want = new Float64Array(into.length).fill(-7);
  for (let r = 0; r < y1 - y0; r++) {
    for (let k = rowStart[r]!; k < rowStart[r + 1]!; k++) for (let x = runs[2 * k]!; x < runs[2 * k + 1]!; x++) want[r * w + x - x0] = ref[r * w + x - x0]!;
  }
  let differ = 0;
  for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) differ++;
  expect(differ, `runs of ${win.join(',')}`).toBe(0);
  expect(runs.length).toBeGreaterThan(0);
}

describe('readWindow', () => {
  const dir = makeTempDir('swath-fields-read-');
  for (const [name, opts] of [['tiled, DEFLATE', { tile: 256 }], ['tiled, uncompressed', { tile: 128, deflate: false }], ['one strip', { tile: 1024 }]] as const) {
    it(`equals readValues on a ${name} file, for a band and a normalized difference`, async () => {
      const file = await writeBands(path.join(dir, `${name.replace(/\W+/g, '-')}.tif`), GRID, '2026-05-01', dn, opts);
      const open = await openGeoTiff(file, new AbortController().signal);
      try {
        for (const expr of ['B8', 'ndvi']) {
          const plan = readPlanFor(parseIndexExpression(expr) as IndexSpec, open.header);
          if ('error' in plan) throw new Error(plan.error);
          for (const win of [[0, 0, 700, 600], [255, 1, 513, 300], [600, 511, 700, 600], [3, 257, 4, 258]] as [number, number, number, number][]) {
            const signal = new AbortController().signal;
            const ours = await readWindow(open, plan, win, signal, 256);
            const ref = await readValues(open, plan, win, signal);
            expect(ours.length).toBe(ref.length);
            let differ = 0;
            for (let i = 0; i < ref.length; i++) if (!Object.is(ours[i], ref[i])) differ++;
            expect(differ, `${expr} ${win.join(',')}`).toBe(0);
            expect(ref.some((v) => Number.isNaN(v))).toBe(win[2] - win[0] > 1);
            await expectWantedRuns(open, plan, win, ref);
          }
        }
      } finally {
        await open.close();
      }
    });
  }

  // GDAL's copies of one Swath file in each sample type and predictor the block reader decodes
  // itself (with values scaled into Byte's range for 8 bits), tiled and striped.
  const variants = [
    ['Int16', 'PREDICTOR=2', 'TILED=YES'], ['Int16', 'PREDICTOR=1', 'TILED=NO'], ['UInt16', 'PREDICTOR=2', 'TILED=NO'],
    ['UInt16', 'PREDICTOR=1', 'TILED=YES'], ['Byte', 'PREDICTOR=2', 'TILED=YES'], ['Byte', 'PREDICTOR=2', 'TILED=NO'],
  ] as const;
  for (const [type, predictor, tiled] of variants) {
    it(`equals readValues on GDAL's ${type} ${predictor} ${tiled} copy`, async () => {
      const source = await writeBands(path.join(dir, `source-${type}-${predictor}-${tiled}.tif`), GRID, '2026-05-01', dn, { tile: 256 });
      const file = path.join(dir, `gdal-${type}-${predictor}-${tiled}.tif`);
      const scale = type === 'Byte' ? ['-scale', '-1700', '4600', '1', '255', '-a_nodata', '0'] : type === 'UInt16' ? ['-scale', '-1700', '4600', '1', '65000', '-a_nodata', '0'] : [];
      execFileSync('gdal_translate', ['-q', '-ot', type, ...scale, '-co', 'COMPRESS=DEFLATE', '-co', predictor, '-co', tiled, '-co', 'BLOCKXSIZE=256', '-co', 'BLOCKYSIZE=256', source, file]);
      const open = await openGeoTiff(file, new AbortController().signal);
      try {
        expect(open.header.dataType).toBe(type === 'Byte' ? 'UINT8' : type.toUpperCase());
        for (const expr of ['B8', 'ndvi']) {
          const plan = readPlanFor(parseIndexExpression(expr) as IndexSpec, open.header);
          if ('error' in plan) throw new Error(plan.error);
          for (const win of [[0, 0, 700, 600], [255, 1, 513, 300], [699, 599, 700, 600]] as [number, number, number, number][]) {
            const signal = new AbortController().signal;
            const ours = await readWindow(open, plan, win, signal, 256);
            const ref = await readValues(open, plan, win, signal);
            let differ = 0;
            for (let i = 0; i < ref.length; i++) if (!Object.is(ours[i], ref[i])) differ++;
            expect(differ, `${expr} ${win.join(',')}`).toBe(0);
            if (win[0] === 0) expect(new Set(ref.slice(0, 5000)).size, 'the values vary').toBeGreaterThan(50);
            await expectWantedRuns(open, plan, win, ref);
          }
        }
      } finally {
        await open.close();
      }
    });
  }
});
