// @vitest-environment jsdom
import { mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';

const SchemaForm = (await import('../../../../renderer/src/platform/components/SchemaForm.vue')).default;

const DATE = '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?$';
const schema = {
  type: 'object',
  properties: {
    Wkt: { type: ['string', 'null'] },
    From: { type: 'string', pattern: DATE, description: 'A date (YYYY-MM-DD).' },
    MiniTiles: { type: 'boolean', default: false },
    MaxResults: { type: 'integer', minimum: 1, maximum: 5000, default: 1000 },
    Direction: { type: 'string', enum: ['Ascending', 'Descending'] },
    SatelliteConstellations: { type: ['array', 'null'], items: { type: 'string', enum: ['Sentinel1', 'Sentinel2'] } },
  },
  required: ['From'],
};

describe('SchemaForm', () => {
  it('draws an input per property with required marks and hints, leaving out excluded ones', () => {
    const w = mount(SchemaForm, { props: { schema, exclude: ['Wkt'] } });
    expect(w.findAll('.field').map((f) => f.attributes('data-field'))).toEqual(['From', 'MiniTiles', 'MaxResults', 'Direction', 'SatelliteConstellations']);
    expect(w.find('[data-field="From"] .req').exists()).toBe(true);
    expect(w.get('[data-field="From"]').text()).toContain('UTC');
    expect(w.get('[data-field="From"]').text()).toContain('A date (YYYY-MM-DD).');
    expect(w.get('[data-field="MaxResults"] input').attributes('type')).toBe('number');
    expect(w.get('[data-field="MaxResults"] input').element).toHaveProperty('value', '1000');
    expect(w.findAll('[data-field="Direction"] option').map((o) => o.text())).toEqual(['—', 'Ascending', 'Descending']);
    expect(w.findAll('[data-field="SatelliteConstellations"] input[type="checkbox"]')).toHaveLength(2);
    expect(w.find('[data-field="Wkt"]').exists()).toBe(false);
  });

  it('checks required fields and formats before submitting, then emits a typed body', async () => {
    const w = mount(SchemaForm, { props: { schema, exclude: ['Wkt'] } });
    await w.get('form').trigger('submit');
    expect(w.emitted('submit')).toBeUndefined();
    expect(w.get('[data-field="From"] [data-testid="field-error"]').text()).toBe('From is required.');
    await w.get('[data-field="From"] input[type="text"]').setValue('2026-11-01');
    expect(w.find('[data-field="From"] [data-testid="field-error"]').exists()).toBe(false);
    await w.get('[data-field="MiniTiles"] input').setValue(true);
    await w.get('[data-field="SatelliteConstellations"] input[type="checkbox"]').setValue(true);
    await w.get('form').trigger('submit');
    expect(w.emitted('submit')![0]).toEqual([{ From: '2026-11-01', MiniTiles: true, MaxResults: 1000, SatelliteConstellations: ['Sentinel1'] }]);
  });

  it('shows the service field errors next to their fields, and others below', () => {
    const w = mount(SchemaForm, { props: { schema, errors: { from: ['From must not be in the future.'], Body: ['Something else.'] } } });
    expect(w.get('[data-field="From"]').text()).toContain('From must not be in the future.');
    expect(w.get('[data-field="From"] input').classes()).toContain('invalid');
    expect(w.text()).toContain('Body: Something else.');
  });
});
