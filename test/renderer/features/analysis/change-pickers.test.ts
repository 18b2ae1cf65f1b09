// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RequestOf, Result } from '../../../../preload/contract';
import { item } from '../library/entries';
import { queryEntries } from '../library/fake-library';
import { bridgeStandIn } from '../../fake-bridge';
import AnalysisBlock from '../../../../renderer/src/features/analysis/views/AnalysisBlock.vue';
import { useLibraryStore } from '../../../../renderer/src/features/library/stores/library';
import { useAoiStore } from '../../../../renderer/src/platform/stores/aoi';

const fake = bridgeStandIn<any>();

const ok = <T>(data: T): Result<T> => ({ ok: true, data });

const AREA = { type: 'Polygon' as const, coordinates: [[[13.40, 52.50], [13.42, 52.50], [13.42, 52.51], [13.40, 52.51], [13.40, 52.50]]] };
const point = (id: string, name: string, date: string) => ({ id, name, date, epsg: 32633, pixels: 100, valid: 100, mean: 0.5, median: 0.5, p10: 0.4, p90: 0.6 });

describe('change between two dates', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('offers only the rasters the series could use, and lists the others disabled with main\'s reason', async () => {
    const entries = [
      item({ id: 'n1', path: '/d/composite_20260610_ndvi_Stratus2_32633_10m.tif', date: '2026-06-10', bands: ['[B8_B4]'] }),
      item({ id: 'r1', path: '/d/composite_20260610_rgb_Stratus2_32633_10m.tif', date: '2026-06-10', bands: ['B4', 'B3', 'B2'] }),
      item({ id: 'n2', path: '/d/composite_20260630_ndvi_Stratus2_32633_10m.tif', date: '2026-06-30', bands: ['[B8_B4]'] }),
    ];
    fake.api = {
      libraryQuery: vi.fn(async (q: RequestOf<'library:query'>) => ok(queryEntries(entries, q))),
      analysisSeries: vi.fn(async () => ok({
        kind: 'area', expression: 'ndvi', label: 'NDVI [B8_B4]', unit: 'index (unitless, -1..1)',
        points: [point('n1', 'composite_20260610_ndvi_Stratus2_32633_10m.tif', '2026-06-10'), point('n2', 'composite_20260630_ndvi_Stratus2_32633_10m.tif', '2026-06-30')],
        skipped: [{ id: 'r1', name: 'composite_20260610_rgb_Stratus2_32633_10m.tif', reason: 'has neither band [B8_B4] nor both B8 and B4 (bands: B4, B3, B2)' }],
      })),
      on: vi.fn(() => () => undefined),
    };
    await useLibraryStore().start();
    useAoiStore().setGeometry(AREA, 'polygon');
    const w = mount(AnalysisBlock);
    await flushPromises();
    // Before the series nothing is known about the bands: nothing is offered yet.
    expect(w.findAll('[data-testid=change-from] option')).toHaveLength(0);
    expect(w.get('[data-testid=change-hint]').text()).toMatch(/Compute the time series first/);

    await w.get('[data-testid=series-compute]').trigger('click');
    await flushPromises();
    for (const picker of ['change-from', 'change-to']) {
      const options = w.findAll(`[data-testid=${picker}] option`);
      expect(options.map((o) => [o.attributes('value'), o.attributes('disabled') !== undefined])).toEqual([['n1', false], ['n2', false], ['r1', true]]);
      expect(options[2]!.text()).toBe('2026-06-10 · composite_20260610_rgb_Stratus2_32633_10m.tif — cannot be used: has neither band [B8_B4] nor both B8 and B4 (bands: B4, B3, B2)');
    }
    expect((w.get('[data-testid=change-from]').element as HTMLSelectElement).value).toBe('n1');
    expect((w.get('[data-testid=change-to]').element as HTMLSelectElement).value).toBe('n2');
    expect(w.get('[data-testid=change-compute]').attributes('disabled')).toBeUndefined();

    // Another expression than the series': the dates may not fit, so the change waits for a new series.
    await w.get('[data-testid=series-expression]').setValue('B11');
    expect(w.get('[data-testid=change-hint]').text()).toMatch(/from the series of ndvi/);
    expect(w.get('[data-testid=change-compute]').attributes('disabled')).toBeDefined();
    w.unmount();
  });
});
