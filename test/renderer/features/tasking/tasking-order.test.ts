import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FREQUENCY_RANGE, backfillNote, buildOrderRequest, cadenceDates, cadencePreview, canonicalJson, changedFields, deepFreeze,
  frequencyLabel, frequencyRangeFromReasons, resolveModelName, tileArea, validateOrderForm, type OrderFormValues,
} from '../../../../renderer/src/features/tasking/model/tasking-order';

const WKT = 'POLYGON((13.3 52.45, 13.5 52.45, 13.5 52.56, 13.3 52.56, 13.3 52.45))';
const form = (over: Partial<OrderFormValues> = {}): OrderFormValues => ({
  model: 'Stratus2', constellations: ['Sentinel1', 'Sentinel2'], storageMonths: 0, apiRequests: 0, imageFrequency: 7,
  referenceDate: '2025-01-01', from: '2025-01-01', to: '2025-01-31', kind: 'historical', ...over,
});
const stratus2 = [{ name: 'Sentinel1', optional: false }, { name: 'Sentinel2', optional: false }, { name: 'Landsat89', optional: true }];
const opts = { models: ['Stratus2', 'Stratus3', 'Stratus2Fast', 'Nimbus'], constellations: stratus2, frequency: DEFAULT_FREQUENCY_RANGE };

describe('order request', () => {
  it('writes one area selector, then the contract fields in a fixed order, with numbers as numbers', () => {
    const r = buildOrderRequest(form({ storageMonths: '3', apiRequests: ' 2 ' }), { Wkt: WKT });
    expect(Object.keys(r)).toEqual(['Wkt', 'SatelliteConstellations', 'Model', 'StorageMonths', 'ApiRequests', 'ImageFrequency', 'ReferenceDate', 'From', 'To']);
    expect(r).toMatchObject({ StorageMonths: 3, ApiRequests: 2, ImageFrequency: 7, To: '2025-01-31' });
    expect('GeoJson' in r).toBe(false);
  });

  it('sends To as null for a recurring order, whatever the To field still holds', () => {
    const r = buildOrderRequest(form({ kind: 'recurring', to: '2025-12-31' }), { Wkt: WKT });
    expect(r.To).toBeNull();
  });

  it('the same form always gives the same JSON text', () => {
    expect(JSON.stringify(buildOrderRequest(form(), { Wkt: WKT }))).toBe(JSON.stringify(buildOrderRequest(form(), { Wkt: WKT })));
  });

  it('tile mode uses the single-GUID field for one tile and the list for several', () => {
    const a = '11111111-1111-4111-8111-111111111111';
    const b = '22222222-2222-4222-8222-222222222222';
    expect(tileArea([a], false)).toEqual({ TileGuid: a });
    expect(tileArea([a], true)).toEqual({ MiniTileGuid: a });
    expect(tileArea([a, b], false)).toEqual({ TileGuids: [a, b] });
    expect(tileArea([a, b], true)).toEqual({ MiniTileGuids: [a, b] });
  });
});

describe('model names', () => {
  it('accepts enum values and explains display names with the value to use', () => {
    expect(resolveModelName('Stratus2', opts.models)).toEqual({ ok: true, value: 'Stratus2' });
    const r = resolveModelName('Stratus-2', opts.models);
    expect(r).toMatchObject({ ok: false, suggestion: 'Stratus2' });
    expect(!r.ok && r.message).toMatch(/display name.*enum value Stratus2/);
    expect(resolveModelName('stratus-2 fast', opts.models)).toMatchObject({ ok: false, suggestion: 'Stratus2Fast' });
    expect(resolveModelName('Cumulus', opts.models)).toMatchObject({ ok: false, suggestion: null });
  });

  it('a display name is a field error: it is never sent', () => {
    expect(validateOrderForm(form({ model: 'Stratus-2' }), opts).Model?.[0]).toMatch(/Stratus2/);
  });
});

describe('form checks', () => {
  it('passes a complete historical order', () => {
    expect(validateOrderForm(form(), opts)).toEqual({});
  });

  it('requires the model\'s required constellations and refuses unknown ones', () => {
    const e = validateOrderForm(form({ constellations: ['Sentinel2', 'Sentinel3OLCI'] }), opts);
    expect(e.SatelliteConstellations).toEqual(['Sentinel1 is required by Stratus2.', 'Sentinel3OLCI is not offered by Stratus2.']);
  });

  it('keeps ImageFrequency in the model\'s range and the period in order', () => {
    expect(validateOrderForm(form({ imageFrequency: 9 }), opts).ImageFrequency?.[0]).toMatch(/between 1 and 7/);
    expect(validateOrderForm(form({ imageFrequency: '2.5' }), opts).ImageFrequency?.[0]).toMatch(/whole number/);
    expect(validateOrderForm(form({ from: '2025-02-01' }), opts).To?.[0]).toMatch(/before From/);
    expect(validateOrderForm(form({ to: '' }), opts).To?.[0]).toMatch(/recurring/);
    expect(validateOrderForm(form({ to: '', kind: 'recurring' }), opts)).toEqual({});
    expect(validateOrderForm(form({ referenceDate: '2025-02-30' }), opts).ReferenceDate).toBeDefined();
  });

  it('learns a narrower frequency range from the service\'s reason', () => {
    expect(frequencyRangeFromReasons(['ImageFrequency must be between 2 and 5 days for Nimbus.'])).toEqual({ min: 2, max: 5 });
    expect(frequencyRangeFromReasons(['something else'])).toBeNull();
  });
});

describe('stale-estimate comparison', () => {
  it('canonical JSON ignores key order but not values', () => {
    expect(canonicalJson({ a: 1, b: { d: [1, 2], c: null } })).toBe(canonicalJson({ b: { c: null, d: [1, 2] }, a: 1 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });

  it('names the fields an edit changed', () => {
    const a = buildOrderRequest(form(), { Wkt: WKT });
    expect(changedFields(a, buildOrderRequest(form({ imageFrequency: 5, kind: 'recurring' }), { Wkt: WKT }))).toEqual(['ImageFrequency', 'To']);
    expect(changedFields(a, buildOrderRequest(form(), { GeoJson: { type: 'Polygon', coordinates: [] } }))).toEqual(['GeoJson', 'Wkt']);
    expect(changedFields(a, buildOrderRequest(form(), { Wkt: WKT }))).toEqual([]);
  });

  it('a frozen payload cannot be edited, and editing the source does not reach it', () => {
    const src = buildOrderRequest(form(), { Wkt: WKT });
    const frozen = deepFreeze(src);
    (src.SatelliteConstellations as string[]).push('Landsat89');
    src.ImageFrequency = 1;
    expect(frozen.ImageFrequency).toBe(7);
    expect(frozen.SatelliteConstellations).toEqual(['Sentinel1', 'Sentinel2']);
    expect(() => { (frozen as Record<string, unknown>).Model = 'Nimbus'; }).toThrow(TypeError);
    expect(() => (frozen.SatelliteConstellations as string[]).push('x')).toThrow(TypeError);
  });
});

describe('cadence', () => {
  it('counts from ReferenceDate in steps of ImageFrequency, even when it lies outside the period', () => {
    expect(cadenceDates('2025-01-01', 7, '2025-01-01', '2025-01-31')).toEqual(['2025-01-01', '2025-01-08', '2025-01-15', '2025-01-22', '2025-01-29']);
    expect(cadenceDates('2024-12-30', 7, '2025-01-01', '2025-01-14')).toEqual(['2025-01-06', '2025-01-13']);
    expect(cadenceDates('2025-03-01', 5, '2025-01-01', '2025-01-12')).toEqual(['2025-01-05', '2025-01-10']);
    expect(cadenceDates('2024-02-27', 1, '2024-02-28', '2024-03-01')).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
  });

  it('previews a historical period, and a recurring order up to the end of this month', () => {
    expect(cadencePreview(form(), '2025-06-01')).toMatchObject({ total: 5, until: '2025-01-31', past: 5 });
    const rec = cadencePreview(form({ kind: 'recurring', from: '2025-06-01', referenceDate: '2025-06-01' }), '2025-06-10');
    expect(rec).toMatchObject({ until: '2025-06-30', total: 5, past: 2 });
    expect(rec!.summary).toMatch(/continuing every month until cancelled/);
  });

  it('labels the frequency as "every N days" and notes a backfill for a past From with recurring', () => {
    expect(frequencyLabel(1)).toBe('every day');
    expect(frequencyLabel('5')).toBe('every 5 days');
    expect(backfillNote(form({ kind: 'recurring', from: '2025-01-01', imageFrequency: 5 }), '2025-03-01')).toBe('Backfills from 2025-01-01, then continues every 5 days.');
    expect(backfillNote(form({ kind: 'recurring', from: '2025-04-01' }), '2025-03-01')).toBeNull();
    expect(backfillNote(form({ kind: 'historical' }), '2025-03-01')).toBeNull();
  });
});
