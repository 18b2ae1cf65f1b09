import { describe, expect, it } from 'vitest';
import {
  currencyOf, describeGeometry, extractDatedGeographies, findGuid, findRows, isDate, isDateTime, isGuid, isMoneyKey, isWkt, unitForKey,
} from '../../../../renderer/src/platform/lib/recognise';

describe('recognising values of "not shown" fields', () => {
  it('recognises GUIDs, dates, WKT and money by value and name', () => {
    expect(isGuid('8c60a59a-ae13-49e9-8e4f-157f6bf6d0ed')).toBe(true);
    expect(isGuid('8c60a59a')).toBe(false);
    expect(isDate('2026-11-17')).toBe(true);
    expect(isDateTime('2026-07-24T07:21:50.125Z')).toBe(true);
    expect(isWkt('POLYGON ((13.3 52.45, 13.5 52.45, 13.3 52.45))')).toBe(true);
    expect(isWkt('Polygon order')).toBe(false);
    expect(describeGeometry('POLYGON ((1 2, 3 4, 5 6, 1 2))')).toBe('Polygon · 3 vertices');
    expect(describeGeometry({ type: 'Polygon', coordinates: [[[1, 2], [3, 4], [5, 6], [1, 2]]] })).toBe('Polygon · 3 vertices');
    expect(isMoneyKey('EuroBalance')).toBe(true);
    expect(isMoneyKey('CreditEstimate')).toBe(true);
    expect(isMoneyKey('MaxTotalBands')).toBe(false);
    expect(isMoneyKey('OrderCount')).toBe(false);
    expect(unitForKey('AreaEstimateKm2')).toBe('km²');
    expect(unitForKey('areaSqKm')).toBe('km²');
    expect(unitForKey('area_sq_km')).toBe('km²');
    expect(isMoneyKey('areaSqKm')).toBe(false);
    expect(isMoneyKey('priceEur')).toBe(true);
    expect(unitForKey('CloudCoverPercent')).toBe('%');
    expect(unitForKey('CurrentTierRatePerKm2')).toBe('EUR/km²');
    expect(currencyOf({ CurrencyCode: 'EUR' })).toBe('EUR');
  });

  it('finds rows and GUIDs in any response shape', () => {
    expect(findRows({ Year: 2026, Orders: [{ a: 1 }] })).toEqual({ key: 'Orders', rows: [{ a: 1 }] });
    expect(findRows({ Data: { Transactions: [] } })).toEqual({ key: 'Data.Transactions', rows: [] });
    expect(findGuid({ Name: 'x', TaskOrderGuid: '8c60a59a-ae13-49e9-8e4f-157f6bf6d0ed' })?.key).toBe('TaskOrderGuid');
  });

  it('extracts dated geographies with the model and constellations of their ancestors', () => {
    const data = {
      ModelImageDates: [
        { Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], DatesByGeog: [{ Wkt: 'POLYGON ((0 0, 1 0, 1 1, 0 0))', Dates: ['2026-11-02', '2026-11-07'] }] },
        { Model: 'Nimbus', SatelliteConstellations: ['Sentinel2L1'], DatesByGeog: [{ GeoJson: { type: 'Polygon', coordinates: [] }, Dates: ['2026-11-05T00:00:00Z'] }] },
      ],
    };
    const out = extractDatedGeographies(data);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ model: 'Stratus2', constellations: ['Sentinel1', 'Sentinel2'], dates: ['2026-11-02', '2026-11-07'] });
    expect(out[1]).toMatchObject({ model: 'Nimbus', dates: ['2026-11-05'] });
  });
});
