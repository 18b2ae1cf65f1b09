// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { changeLimit, paintChange } from '../../../../renderer/src/features/analysis/views/change-layer';
import { seriesCsv, utcSeconds, type SeriesResult } from '../../../../renderer/src/features/analysis/model/series-csv';

const area: SeriesResult = {
  kind: 'area', expression: 'ndvi', label: 'NDVI [B8_B4]', unit: 'index (unitless, -1..1)', skipped: [],
  points: [
    { id: 'a', name: 'a, "first".tif', date: '2026-04-10', epsg: 32633, pixels: 100, valid: 90, mean: 0.5849123456789, median: 0.6888, p10: 0.252, p90: 0.769 },
    { id: 'b', name: 'b.tif', date: '2026-06-15', epsg: 32633, pixels: 100, valid: 0, mean: null, median: null, p10: null, p90: null },
  ],
};

describe('series CSV', () => {
  it('writes the header first (no comment line), one row per UTC date with flat units in the headers, full precision, quoting and empty no-data cells', () => {
    const lines = seriesCsv(area).trimEnd().split('\n');
    // No comment line: the header comes first, flat names with the expression and the unit.
    expect(lines[0]).toBe('date_utc,file,epsg,mean_ndvi [unitless],median_ndvi [unitless],p10_ndvi [unitless],p90_ndvi [unitless],valid_pixels,pixels_in_area');
    expect(lines[1]).toBe('2026-04-10,"a, ""first"".tif",32633,0.5849123456789,0.6888,0.252,0.769,90,100');
    expect(lines[2]).toBe('2026-06-15,b.tif,32633,,,,,0,100');
  });

  it('writes the value and the pixel for a point', () => {
    const point: SeriesResult = {
      kind: 'point', expression: 'B8', label: 'B8', unit: 'reflectance', skipped: [],
      points: [{ id: 'a', name: 'a.tif', date: '2026-04-10', epsg: 32633, valid: 1, mean: 0.31, median: 0.31, p10: 0.31, p90: 0.31, value: 0.31, pixel: { col: 21, row: 13, x: 392430, y: 5818510 } }],
    };
    expect(seriesCsv(point).split('\n').slice(0, 2)).toEqual([
      'date_utc,file,epsg,value_B8 [reflectance],pixel_col,pixel_row,pixel_centre_x,pixel_centre_y',
      '2026-04-10,a.tif,32633,0.31,21,13,392430,5818510',
    ]);
    expect(utcSeconds('2026-04-10')).toBe(Date.UTC(2026, 3, 10) / 1000);
  });
});

describe('change layer colours', () => {
  it('ramps red (down) to white (0) to blue (up) over a symmetric limit; no data is transparent', () => {
    const px = paintChange(Float32Array.from([-1, 0, 1, NaN, 0.5, -2]), 1);
    expect([...px.slice(0, 4)]).toEqual([103, 0, 31, 255]);
    // No change is transparent: what lies beneath shows through.
    expect(px[7]).toBe(0);
    expect([...px.slice(8, 12)]).toEqual([5, 48, 97, 255]);
    expect(px[15]).toBe(0);
    // Opacity grows with the change, opaque from the limit on.
    expect(px[19]).toBe(128);
    expect(px[23]).toBe(255);
  });

  it('limits the ramp at the 98th percentile of |change|', () => {
    const v = Float32Array.from({ length: 101 }, (_, i) => (i % 2 ? 1 : -1) * i / 100);
    expect(changeLimit(v)).toBe(0.98);
    expect(changeLimit(Float32Array.from([NaN]))).toBe(1);
  });
});
