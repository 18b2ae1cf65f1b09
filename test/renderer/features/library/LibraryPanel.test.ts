// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { h } from 'vue';
import type { RequestOf, Result } from '../../../../preload/contract';
import { queryEntries } from './fake-library';
import { item } from './entries';
import { bridgeStandIn } from '../../fake-bridge';
import LibraryPanel from '../../../../renderer/src/features/library/views/LibraryPanel.vue';
import { panelById } from '../../../../renderer/src/shell/panels';
import '../../../../renderer/src/shell/features';

const fake = bridgeStandIn<any>();
vi.mock('../../../../renderer/src/platform/raster/raster-data', async (orig) => ({
  ...(await orig<typeof import('../../../../renderer/src/platform/raster/raster-data')>()),
  RasterFile: { open: vi.fn(async () => { throw new Error('no network in this test'); }) },
}));
const ok = <T>(data: T): Result<T> => ({ ok: true, data });
// The rail's panels and the Analysis block load their modules on first render: waited for as states, with room for a loaded machine.
const LOADED = { timeout: 20_000 };
const WKT = 'POLYGON((13.40 52.50, 13.42 52.50, 13.42 52.51, 13.40 52.51, 13.40 52.50))';

function bridge(entries: ReturnType<typeof item>[]) {
  fake.api = {
    libraryQuery: vi.fn(async (q: RequestOf<'library:query'>) => ok(queryEntries(entries, q))),
    libraryImport: vi.fn(async () => ({ ok: false, error: { kind: 'not-found', message: 'Cannot import /nope.tif: the file does not exist' } })),
    libraryRemove: vi.fn(async ({ id }: { id: string }) => {
      entries.splice(entries.findIndex((e) => e.id === id), 1);
      return ok({ removed: true as const });
    }),
    libraryReveal: vi.fn(async () => ok({ revealed: true })),
    on: vi.fn(() => () => undefined),
  };
}

describe('Library panel', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('says what to do when the library is empty', async () => {
    bridge([]);
    const w = mount(LibraryPanel);
    await flushPromises();
    expect(w.get('[data-testid=library-empty]').text()).toMatch(/Downloads land here automatically/);
  });

  it('lists rasters with date, model, bands, EPSG, resolution, size and AOI; search narrows the list', async () => {
    bridge([
      item({ id: 'one', path: '/d/berlin.tif', date: '2026-06-14', bands: ['B4', 'B3', 'B2', 'B8'], resolution: 10, size: 10.5 * 1024 * 1024, bounds4326: [13.4, 52.5, 13.5, 52.6] }),
      item({ id: 'two', path: '/d/paris.tif', epsg: 2154, bounds4326: null, date: '2026-05-02' }),
    ]);
    const w = mount(LibraryPanel);
    await flushPromises();
    const row = w.get('[data-testid=entry-one]').text();
    for (const text of ['berlin.tif', '2026-06-14 UTC', 'Stratus2', 'EPSG:32633', '10 m', '11 MB', '4 bands: B4 B3 B2 B8', '13.400°E – 13.500°E, 52.500°N – 52.600°N', 'km²']) expect(row).toContain(text);
    expect(w.get('[data-testid=entry-two]').text()).toContain('unknown footprint');
    await w.get('[data-testid=library-search]').setValue('2154');
    await flushPromises();
    expect(w.findAll('article').map((a) => a.attributes('data-file'))).toEqual(['paris.tif']);
    expect(w.text()).toContain('1 of 2 rasters');
  });

  it("in the rail (the shell's panel registry) shows the Analysis block in its slot once the library has rasters", async () => {
    bridge([]);
    const empty = mount({ render: () => h(panelById('library').component) });
    await vi.waitFor(() => empty.get('[data-testid=library-empty]'), LOADED);
    expect(empty.find('[data-testid=analysis]').exists()).toBe(false);
    empty.unmount();
    bridge([item({ id: 'one' })]);
    const w = mount({ render: () => h(panelById('library').component) });
    await vi.waitFor(() => w.get('[data-testid=entry-one]'), LOADED);
    // The block loads when shown; waited for, so no import is still on its way when the test ends.
    await vi.waitFor(() => w.get('[data-testid=analysis]'), LOADED);
    expect(w.get('[data-testid=analysis]').text()).toMatch(/Analyse/);
  });

  it('remove asks first, and can delete the file too', async () => {
    bridge([item({ id: 'one' })]);
    const w = mount(LibraryPanel);
    await flushPromises();
    await w.get('[data-testid=remove-one]').trigger('click');
    await w.get('[data-testid=delete-file]').setValue(true);
    await w.get('[data-testid=confirm-remove]').trigger('click');
    await flushPromises();
    expect(fake.api.libraryRemove).toHaveBeenCalledWith({ id: 'one', deleteFile: true });
    expect(w.findAll('article')).toHaveLength(0);
  });

  it('imports typed paths and shows main\'s reason when it fails', async () => {
    bridge([item({ id: 'one' })]);
    const w = mount(LibraryPanel);
    await flushPromises();
    await w.get('[data-testid=import-path]').setValue('"/nope.tif"');
    await w.get('[data-testid=import-button]').trigger('click');
    await flushPromises();
    expect(fake.api.libraryImport).toHaveBeenCalledWith({ paths: ['/nope.tif'] });
    expect(w.get('[data-testid=import-error]').text()).toMatch(/does not exist/);
  });

  it('draws only the rows in view of a long library, and asks main for a window of them', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => item({ id: `r${i}`, path: `/d/r${i}.tif`, bounds4326: [i * 0.01, 0, i * 0.01 + 0.005, 0.005] }));
    bridge(many);
    // The scroller's height is read in a frame after the mount, never in the mount's task (a forced
    // layout of the page): frames are held here, and each read of the scroller's height counted.
    const frames: FrameRequestCallback[] = [];
    const raf = vi.spyOn(window, 'requestAnimationFrame').mockImplementation((cb) => frames.push(cb));
    let reads = 0;
    let panel: Element | null = null;
    // This panel's scroller only (other tests' panels stay mounted, their frames still coming).
    const height = vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockImplementation(function (this: HTMLElement) {
      if (this.dataset.testid === 'library-scroller' && panel?.contains(this)) reads++;
      return 0;
    });
    try {
      const w = mount(LibraryPanel);
      panel = w.element;
      await flushPromises();
      expect(w.text()).toContain('3000 of 3000 rasters');
      // Until then the rows drawn fill the scroller's CSS height (70% of the window) at the row estimate, plus 3 either side.
      expect(reads).toBe(0);
      expect(w.findAll('article')).toHaveLength(Math.ceil(Math.round(window.innerHeight * 0.7) / 118) + 3);
      for (const cb of frames.splice(0)) cb(0);
      expect(reads).toBeGreaterThan(0);
    } finally {
      raf.mockRestore();
      height.mockRestore();
    }
    // One window of rows was asked for, never the whole library.
    for (const [q] of fake.api.libraryQuery.mock.calls) expect(q.limit).toBeLessThanOrEqual(500);
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(1);
  });

  it('groups dates of one AOI into a time series with a slider', async () => {
    bridge([
      item({ id: 'd1', date: '2026-06-10', request: { Wkt: WKT } }),
      item({ id: 'd2', date: '2026-06-20', request: { Wkt: WKT } }),
      item({ id: 'd3', date: '2026-06-30', request: { Wkt: WKT } }),
    ]);
    const w = mount(LibraryPanel);
    await flushPromises();
    const series = w.get('[data-testid=time-series]');
    expect(series.text()).toMatch(/3 dates · 2026-06-10 → 2026-06-30/);
    expect(w.get('[data-testid=series-date]').text()).toBe('2026-06-30');
    // A dot per date drawn by one element's background, the shown date (the last) marked: no element per date.
    const ticks = series.get('[data-testid=series-ticks]');
    expect(ticks.attributes('style')).toContain('--dates: 3');
    expect(ticks.element.children).toHaveLength(1);
    expect(ticks.get('.on').attributes('style')).toContain(`--at: ${2.5 / 3}`);
    // Only the current date's row is shown inside the block.
    expect(series.findAll('article')).toHaveLength(1);
  });
});
