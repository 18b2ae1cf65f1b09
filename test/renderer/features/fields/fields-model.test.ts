import { describe, expect, it } from 'vitest';
import { etaText, fieldRows, formatColumn, formatValue, legendOf, NUMBER_COLUMNS, parcelSeries, sortFilter, type FieldLatestItem, type FieldRow, type FieldStatisticItem } from '../../../../renderer/src/features/fields/model/fields';

const parcels = [
  { index: 0, id: 'A-1', name: 'North' },
  { index: 1, id: 'A-2', name: null },
  { index: 2, id: 'B-10', name: 'South' },
  { index: 3, id: 'B-9', name: 'East' },
];
const others = (k: number) => ({ median: 0.5 + k, min: 0.1 * k, max: 0.9 - 0.1 * k, std: 0.05 * k, p10: 0.2 - k, p90: 0.8 + k, validPixels: 100 - k, coveredShare: 0.9 + 0.01 * k, validShare: 1 - 0.2 * k });
const latest: FieldLatestItem[] = [
  { parcelIndex: 0, date: '2026-06-23', value: 0.5, previousDate: '2026-06-16', change: -0.2, ...others(0) },
  { parcelIndex: 2, date: '2026-06-23', value: 0.7, previousDate: '2026-06-16', change: 0.1, ...others(2) },
  { parcelIndex: 3, date: '2026-06-16', value: 0.4, previousDate: null, change: null, ...others(3) },
];
const rows: FieldRow[] = fieldRows(parcels, latest);
const all = { text: '', column: 'change' as const, min: null, max: null };

describe('the fields table model', () => {
  it('joins every parcel with its latest value, a parcel without one kept empty', () => {
    expect(rows.map((r) => [r.id, r.name, r.value, r.change])).toEqual([['A-1', 'North', 0.5, -0.2], ['A-2', '', null, null], ['B-10', 'South', 0.7, 0.1], ['B-9', 'East', 0.4, null]]);
  });

  it('sorts by change with the largest drop first and empty changes last in both directions', () => {
    expect(sortFilter(rows, all, 'change', 1).map((r) => r.id)).toEqual(['A-1', 'B-10', 'A-2', 'B-9']);
    expect(sortFilter(rows, all, 'change', -1).map((r) => r.id)).toEqual(['B-10', 'A-1', 'A-2', 'B-9']);
    // Ids sort as people read them: B-9 before B-10.
    expect(sortFilter(rows, all, 'id', 1).map((r) => r.id)).toEqual(['A-1', 'A-2', 'B-9', 'B-10']);
  });

  it('filters by text in the id or name and by a range of the value or change', () => {
    expect(sortFilter(rows, { ...all, text: 'south' }, 'id', 1).map((r) => r.id)).toEqual(['B-10']);
    expect(sortFilter(rows, { ...all, max: -0.1 }, 'id', 1).map((r) => r.id)).toEqual(['A-1']);
    expect(sortFilter(rows, { ...all, column: 'value', min: 0.45 }, 'id', 1).map((r) => r.id)).toEqual(['A-1', 'B-10']);
  });

  it('sorts and filters by every statistic of the latest valid date, shares shown in %', () => {
    expect(NUMBER_COLUMNS.map((c) => c.key).sort()).toEqual(['change', 'coveredShare', 'max', 'median', 'min', 'p10', 'p90', 'std', 'validPixels', 'validShare', 'value']);
    for (const { key } of NUMBER_COLUMNS) {
      // Each column holds its own statistic of the parcel's latest row.
      expect(rows.map((r) => r[key]), key).toEqual([latest[0]![key], null, latest[1]![key], latest[2]![key]]);
      const byKey = sortFilter(rows, all, key, 1).map((r) => r.id);
      const want = [...latest].sort((a, b) => (a[key] ?? Infinity) - (b[key] ?? Infinity)).map((l) => parcels[l.parcelIndex]!.id);
      if (latest.every((l) => l[key] !== null)) expect(byKey, key).toEqual([...want, 'A-2']);
    }
    expect(sortFilter(rows, { ...all, column: 'validShare', max: 0.7 }, 'id', 1).map((r) => r.id)).toEqual(['B-9', 'B-10']);
    expect(sortFilter(rows, { ...all, column: 'p90', min: 2 }, 'id', 1).map((r) => r.id)).toEqual(['B-9', 'B-10']);
    expect(formatColumn(rows[0]!, 'validShare')).toBe('100.0 %');
    expect(formatColumn(rows[2]!, 'coveredShare')).toBe('92.0 %');
    expect(formatColumn(rows[1]!, 'median')).toBe('—');
    expect(formatColumn(rows[0]!, 'change')).toBe('-0.2');
    expect(formatColumn(rows[2]!, 'change')).toBe('+0.1');
  });

  it('gives a value legend over the values and a change legend centred on 0', () => {
    expect(legendOf(rows, 'value')).toMatchObject({ ramp: 'viridis', min: 0.4, max: 0.7 });
    expect(legendOf(rows, 'change')).toEqual({ by: 'change', ramp: 'rdylgn', min: -0.2, max: 0.2 });
    expect(legendOf(fieldRows(parcels, []), 'value')).toBeNull();
  });

  it('leaves the dates under the valid share out of the chart lines and marks them', () => {
    const stat = (date: string, mean: number, below: boolean): FieldStatisticItem => ({
      setId: 's', parcelIndex: 0, rasterId: `r-${date}`, date, index: 'NDVI [B8_B4]', rule: 'exact', mean, min: 0, max: 1, std: 0.1, median: mean, p10: 0.1, p90: 0.9,
      validPixels: 10.4, coveredShare: 1, validShare: below ? 0.3 : 0.99, belowThreshold: below,
    });
    const { series, invalid } = parcelSeries([stat('2026-06-16', 0.6, false), stat('2026-06-09', 0.5, true), stat('2026-06-02', 0.4, false)], 'ndvi', 'North · ndvi');
    expect(series.points.map((p) => [p.date, p.mean])).toEqual([['2026-06-02', 0.4], ['2026-06-09', null], ['2026-06-16', 0.6]]);
    expect(invalid).toEqual(['2026-06-09']);
    expect(series.skipped[0]!.reason).toContain('30 %');
    expect(series.unit).toBe('index (unitless, -1..1)');
  });

  it('writes numbers, changes and the time left as the panel shows them', () => {
    expect(formatValue(0.123456, true)).toBe('+0.1235');
    expect(formatValue(null)).toBe('—');
    expect(etaText(null)).toBe('estimating time left…');
    expect(etaText(42_000)).toBe('about 42 s left');
    expect(etaText(3 * 3_600_000 + 5 * 60_000)).toBe('about 3 h 5 min left');
  });
});
