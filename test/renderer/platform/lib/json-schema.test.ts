import { describe, expect, it } from 'vitest';
import { buildBody, describeFields, validateValues } from '../../../../renderer/src/platform/lib/json-schema';

const DATE = '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?$';
const schema = {
  type: 'object',
  properties: {
    From: { type: 'string', pattern: DATE },
    To: { type: ['string', 'null'], pattern: DATE },
    MiniTiles: { type: 'boolean', default: false },
    MaxResults: { type: 'integer', minimum: 1, maximum: 5000, default: 1000 },
    SatelliteConstellations: { type: ['array', 'null'], items: { type: 'string', enum: ['Sentinel1', 'Sentinel2'] } },
    recurringOnly: { type: 'string', enum: ['true', 'false'] },
    taskOrderGuid: { type: 'string', format: 'uuid' },
    GeoJson: { type: ['object', 'null'], properties: { type: { type: 'string' } } },
  },
  required: ['From'],
};

describe('JSON Schema forms', () => {
  it('derives field kinds, requiredness and nullability', () => {
    const fields = describeFields(schema);
    expect(fields.map((f) => [f.name, f.kind, f.required, f.nullable])).toEqual([
      ['From', 'date', true, false],
      ['To', 'date', false, true],
      ['MiniTiles', 'boolean', false, false],
      ['MaxResults', 'integer', false, false],
      ['SatelliteConstellations', 'enum-array', false, true],
      ['recurringOnly', 'boolean-string', false, false],
      ['taskOrderGuid', 'guid', false, false],
      ['GeoJson', 'json', false, true],
    ]);
  });

  it('checks values like the service would and builds a typed body of set fields', () => {
    const fields = describeFields(schema);
    expect(validateValues(fields, { From: '', MaxResults: '0', taskOrderGuid: 'nope' })).toEqual({
      From: ['From is required.'],
      MaxResults: ['MaxResults must be at least 1.'],
    });
    expect(validateValues(fields, { From: '2026/11/01' }).From![0]).toContain('YYYY-MM-DD');
    expect(buildBody(fields, { From: '2026-11-01', To: '', MiniTiles: true, MaxResults: '20', SatelliteConstellations: ['Sentinel2'], recurringOnly: '' })).toEqual({
      From: '2026-11-01', MiniTiles: true, MaxResults: 20, SatelliteConstellations: ['Sentinel2'],
    });
  });
});
