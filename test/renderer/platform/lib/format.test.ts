import { describe, expect, it } from 'vitest';
import {
  addDaysUtc, addMonths, bytesTitle, formatBytes, formatDate, formatDateTime, formatEta, formatKm2, formatLonLat, formatMoney, formatRate, formatScale, humanize,
} from '../../../../renderer/src/platform/lib/format';

describe('formatting with units', () => {
  it('puts a unit on every number', () => {
    expect(formatKm2(150.543)).toBe('150.54 km²');
    expect(formatKm2(2500)).toBe('2,500 km²');
    expect(formatMoney(22138.6)).toBe('22,138.60 EUR');
    expect(formatMoney(-2529.05, 'EUR')).toBe('-2,529.05 EUR');
    expect(formatBytes(22_400_000)).toBe('22.4 MB');
    expect(formatBytes(999)).toBe('999 B');
    // The one size format of the app: SI units, the exact bytes in the tooltip.
    expect(formatBytes(110_667)).toBe('111 kB');
    expect(bytesTitle(110_667)).toBe('110,667 bytes (SI: 1 kB = 1,000 bytes)');
    expect(formatRate(3_200_000)).toBe('3.2 MB/s');
    expect(formatEta(65)).toBe('1 min 05 s');
    expect(formatEta(null)).toBe('–');
    expect(formatScale(144448)).toBe('1:140,000');
    // Grouped as en-US groups integers, from 1:1 to the whole world.
    for (const d of [1, 12, 999, 1_000, 1_049, 99_500, 123_456, 1_234_567, 559_082_264, 5e9]) {
      expect(formatScale(d)).toBe(`1:${new Intl.NumberFormat('en-US').format(Number(formatScale(d).slice(2).replaceAll(',', '')))}`);
    }
    expect(formatScale(559_082_264)).toBe('1:560,000,000');
    expect(formatScale(999)).toBe('1:999');
    expect(formatLonLat(13.4, -52.5, 2)).toBe('13.40° E  52.50° S');
  });

  it('writes dates as YYYY-MM-DD in UTC', () => {
    expect(formatDate('2026-07-24T23:30:00-02:00')).toBe('2026-07-25');
    expect(formatDate('2026-07-24')).toBe('2026-07-24');
    expect(formatDateTime('2026-07-24T07:21:50.125Z')).toBe('2026-07-24 07:21 UTC');
    expect(addDaysUtc('2024-02-28', 1)).toBe('2024-02-29');
    expect(addMonths('2026-01', -1)).toBe('2025-12');
  });

  it('makes property names readable', () => {
    expect(humanize('MaxCompositeAreaKm2')).toBe('Max composite area km²');
    expect(humanize('OrdersCoverPolygon')).toBe('Orders cover polygon');
    expect(humanize('EPSGCode')).toBe('EPSG code');
  });
});
