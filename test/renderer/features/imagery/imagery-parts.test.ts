// @vitest-environment jsdom
import { mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';

// v-model props are not visible through the .vue shim the test tsconfig uses.
const BandnamesBuilder: any = (await import('../../../../renderer/src/features/imagery/views/BandnamesBuilder.vue')).default;
const AvailabilityChecks = (await import('../../../../renderer/src/features/imagery/views/AvailabilityChecks.vue')).default;
const DateCalendar = (await import('../../../../renderer/src/features/imagery/views/DateCalendar.vue')).default;
const { useUiStore } = await import('../../../../renderer/src/platform/stores/ui');

beforeEach(() => setActivePinia(createPinia()));

describe('Bandnames builder', () => {
  it('builds bands and index terms in the order added and shows the output band order', async () => {
    const w: any = mount(BandnamesBuilder, { props: { modelValue: 'rgb', 'onUpdate:modelValue': (v: string) => w.setProps({ modelValue: v }), maxBands: 4 } });
    expect(w.get('[data-testid="band-order"]').text()).toContain('1 B4');
    await w.get('[data-testid="bands-custom"]').trigger('click');
    expect(w.props('modelValue')).toBe('B4,B3,B2');
    await w.get('[data-band="B8"]').trigger('click');
    await w.get('[data-testid="add-ndvi"]').trigger('click');
    expect(w.props('modelValue')).toBe('B4,B3,B2,B8,ndvi');
    const order = w.get('[data-testid="band-order"]').text();
    expect(order).toContain('5 [B8_B4]');
    expect(w.text()).toContain('max 4');
    expect(w.get('[data-testid="bandnames-input"]').classes()).toContain('invalid');
    await w.get('[data-band="B3"]').trigger('click');
    expect(w.props('modelValue')).toBe('B4,B2,B8,ndvi');
    await w.get('[data-testid="bandnames-input"]').setValue('rgb,B8');
    expect(w.text()).toContain('"rgb" must be used alone');
  });
});

describe('Availability checks', () => {
  it('turns boolean flags into readable checks with what to do, linking to Tasking', async () => {
    const w = mount(AvailabilityChecks, { props: { data: { FullyAvailable: false, OrdersCoverPolygon: false, PolygonInDataArea: true, RequestedAreaKm2: 79.4 }, stale: false } });
    expect(w.text()).toContain('cannot be fulfilled');
    expect(w.get('[data-flag="OrdersCoverPolygon"]').text()).toContain('Order this area first');
    expect(w.get('[data-flag="PolygonInDataArea"]').text()).toContain('✓');
    expect(w.text()).toContain('79.4 km²');
    await w.get('[data-flag="OrdersCoverPolygon"] button').trigger('click');
    expect(useUiStore().activePanel).toBe('tasking');
  });

  it('does not present a false partial flag as a problem when the composite is fully available', () => {
    const w = mount(AvailabilityChecks, { props: { data: { FullyAvailable: true, PartiallyAvailable: false, OrdersCoverPolygon: true }, stale: false } });
    const partial = w.get('[data-flag="PartiallyAvailable"]');
    expect(partial.text()).not.toContain('✗');
    expect(partial.text()).not.toContain('No part of the AOI');
    expect(partial.classes()).not.toContain('bad');
    expect(partial.text()).toContain('whole AOI has imagery');
    expect(w.text()).toContain('can be fulfilled');
    // Other spellings are recognised the same way (field names are not assumed).
    const v = mount(AvailabilityChecks, { props: { data: { is_fully_available: true, partial_image: false }, stale: false } });
    expect(v.get('[data-flag="partial_image"]').text()).not.toContain('No part of the AOI');
    // Neither fully nor partially available: that is still the problem it was.
    const n = mount(AvailabilityChecks, { props: { data: { FullyAvailable: false, PartiallyAvailable: false }, stale: false } });
    expect(n.get('[data-flag="PartiallyAvailable"]').text()).toContain('✗');
    expect(n.get('[data-flag="PartiallyAvailable"]').text()).toContain('No part of the AOI has imagery');
  });

  it('says when the check is stale', () => {
    const w = mount(AvailabilityChecks, { props: { data: { FullyAvailable: true }, stale: true } });
    expect(w.get('[data-testid="check-stale"]').text()).toContain('check again');
  });
});

describe('Date calendar', () => {
  it('marks available dates as buttons, the picked one pressed, and emits pick and hover', async () => {
    const w = mount(DateCalendar, {
      props: { dates: ['2026-10-03', '2026-11-02'], from: '2026-10-01', until: '2026-11-30', selected: '2026-11-02', counts: new Map([['2026-10-03', 1], ['2026-11-02', 2]]) },
    });
    const buttons = w.findAll('button[data-date]');
    expect(buttons.map((b) => b.attributes('data-date'))).toEqual(['2026-10-03', '2026-11-02']);
    expect(w.get('button[data-date="2026-11-02"]').attributes('aria-pressed')).toBe('true');
    expect(w.text()).toContain('October 2026');
    await buttons[0]!.trigger('mouseenter');
    await buttons[0]!.trigger('click');
    expect(w.emitted('hover')![0]).toEqual(['2026-10-03']);
    expect(w.emitted('pick')![0]).toEqual(['2026-10-03']);
  });
});
