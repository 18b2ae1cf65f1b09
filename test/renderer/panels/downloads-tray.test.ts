// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { bridgeStandIn, job, makeBridge, ok } from '../fake-bridge';
import DownloadsTray from '../../../renderer/src/features/downloads/views/DownloadsTray.vue';
import { usePreviewStore } from '../../../renderer/src/stores/preview';
import { useUiStore } from '../../../renderer/src/stores/ui';

const fake = bridgeStandIn();
/** The library ids the tray asked the preview store to open on the map (the store's own work is its tests'). */
const opened = { ids: [] as string[] };

beforeEach(() => {
  setActivePinia(createPinia());
  opened.ids = [];
  vi.spyOn(usePreviewStore(), 'openOnMap').mockImplementation(async (id: string) => void opened.ids.push(id));
});

describe('Downloads tray', () => {
  it('shows progress with bytes, rate and ETA, then the file, and hands "Open on map" to the library', async () => {
    const running = job({ id: 'j1', state: 'running', total: 4_000_000 });
    const bridge = makeBridge({ downloadsList: async () => ok({ total: 1, jobs: [running] }) });
    fake.api = bridge.api;
    useUiStore().trayOpen = true;
    const w = mount(DownloadsTray);
    await flushPromises();
    expect(w.get('.tray-head').text()).toContain('1 running');
    bridge.emit('download:progress', { jobId: 'j1', bytes: 1_000_000, total: 4_000_000, rateBytesPerSec: 2_000_000, etaSec: 1.5 });
    await flushPromises();
    const row = w.get('[data-testid="download-job"]');
    expect(row.get('[role="progressbar"]').attributes('aria-valuenow')).toBe('25');
    expect(row.text()).toContain('1 MB / 4 MB');
    expect(row.text()).toContain('2 MB/s');
    expect(row.text()).toContain('ETA 2 s');
    await row.get('[data-testid="job-cancel"]').trigger('click');
    expect(bridge.api.downloadsCancel).toHaveBeenCalledWith({ id: 'j1' });

    bridge.emit('job:state', { ...running, state: 'done', bytes: 4_000_000, file: '/home/a/Downloads/composite_x.tif', libraryId: 'L1' });
    // A last throttled progress figure (85 %) arriving after the state change does not hold the bar back.
    bridge.emit('download:progress', { jobId: 'j1', bytes: 3_400_000, total: 4_000_000, rateBytesPerSec: 2_000_000, etaSec: 0.3 });
    await flushPromises();
    const bar = w.get('[data-testid="download-job"] [role="progressbar"]');
    expect(bar.attributes('aria-valuenow')).toBe('100');
    expect(bar.get('.bar').attributes('style')).toContain('width: 100%');
    // Full at once: no width animation left part-way in a throttled window.
    expect(bar.classes()).toContain('complete');
    expect(w.get('[data-testid="job-file"]').text()).toBe('composite_x.tif');
    await w.get('[data-testid="job-open"]').trigger('click');
    await flushPromises();
    expect(opened.ids).toEqual(['L1']);
    expect(useUiStore().activePanel).toBe('library');
    await w.get('[data-testid="job-reveal"]').trigger('click');
    await flushPromises();
    expect(w.text()).toContain('The file is at /home/a/Downloads/composite_x.tif');
  });

  it('draws only the rows in view of a long history and reads the next page as it scrolls', async () => {
    const all = Array.from({ length: 5000 }, (_, i) => job({ id: `h${i}`, state: 'done', file: `/d/f${i}.tif`, updatedAt: new Date(Date.UTC(2026, 0, 1) - i * 1000).toISOString() }));
    const asked: { offset?: number; limit?: number }[] = [];
    const bridge = makeBridge({
      downloadsList: async (req?: { offset?: number; limit?: number }) => {
        asked.push({ offset: req?.offset, limit: req?.limit });
        const from = req?.offset ?? 0;
        return ok({ total: all.length, jobs: all.slice(from, from + (req?.limit ?? 500)) });
      },
    });
    fake.api = bridge.api;
    useUiStore().trayOpen = true;
    const w = mount(DownloadsTray);
    await flushPromises();
    expect(asked).toEqual([{ offset: 0, limit: 100 }]);
    expect(w.get('.tray-head').text()).toContain('5000 finished');
    const drawn = w.findAll('[data-testid="download-job"]');
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.length).toBeLessThan(30);
    expect(drawn[0]!.text()).toContain('f0.tif');

    // Scrolled to the end of what was read: the next page is asked for, and the rows there are drawn.
    const scroller = w.get('[data-testid="downloads-scroller"]');
    (scroller.element as HTMLElement).scrollTop = 95 * 84;
    await scroller.trigger('scroll');
    await flushPromises();
    expect(asked).toEqual([{ offset: 0, limit: 100 }, { offset: 100, limit: 100 }]);
    const later = w.findAll('[data-testid="download-job"]').map((r) => r.text());
    expect(later.some((t) => t.includes('f95.tif'))).toBe(true);
    expect(later.some((t) => t.includes('f0.tif'))).toBe(false);
    expect(w.findAll('[data-testid="download-job"]').length).toBeLessThan(30);
  });

  it('offers Retry for a failed job and shows why it failed', async () => {
    const bridge = makeBridge({ downloadsList: async () => ok({ total: 1, jobs: [job({ id: 'j2', state: 'failed', reason: 'The service could not be reached.', attempts: 3 })] }) });
    fake.api = bridge.api;
    useUiStore().trayOpen = true;
    const w = mount(DownloadsTray);
    await flushPromises();
    expect(w.text()).toContain('The service could not be reached. (after 3 attempts)');
    await w.get('[data-testid="job-retry"]').trigger('click');
    expect(bridge.api.downloadsRetry).toHaveBeenCalledWith({ id: 'j2' });
  });

  it('has an empty state', async () => {
    fake.api = makeBridge().api;
    useUiStore().trayOpen = true;
    const w = mount(DownloadsTray);
    await flushPromises();
    expect(w.text()).toContain('No downloads yet');
  });
});
