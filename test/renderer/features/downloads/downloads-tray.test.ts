// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { bridgeStandIn, job, makeBridge, ok, pagesOf } from '../../fake-bridge';
import DownloadsTray from '../../../../renderer/src/features/downloads/views/DownloadsTray.vue';
import { useDownloadsStore } from '../../../../renderer/src/features/downloads/stores/downloads';
import { usePreviewStore } from '../../../../renderer/src/features/library/stores/preview';
import { useUiStore } from '../../../../renderer/src/platform/stores/ui';

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
    const bridge = makeBridge({ downloadsList: pagesOf([running]) });
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
    const asked: { after?: string; limit?: number }[] = [];
    const bridge = makeBridge({ downloadsList: pagesOf(all, asked) });
    fake.api = bridge.api;
    useUiStore().trayOpen = true;
    const w = mount(DownloadsTray);
    await flushPromises();
    expect(asked).toEqual([{ after: undefined, limit: 100 }]);
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
    expect(asked).toEqual([{ after: undefined, limit: 100 }, { after: '100', limit: 100 }]);
    const later = w.findAll('[data-testid="download-job"]').map((r) => r.text());
    expect(later.some((t) => t.includes('f95.tif'))).toBe(true);
    expect(later.some((t) => t.includes('f0.tif'))).toBe(false);
    expect(w.findAll('[data-testid="download-job"]').length).toBeLessThan(30);
  });

  it('offers Retry for a failed job and shows why it failed', async () => {
    const bridge = makeBridge({ downloadsList: pagesOf([job({ id: 'j2', state: 'failed', reason: 'The service could not be reached.', attempts: 3 })]) });
    fake.api = bridge.api;
    useUiStore().trayOpen = true;
    const w = mount(DownloadsTray);
    await flushPromises();
    expect(w.text()).toContain('The service could not be reached. (after 3 attempts)');
    await w.get('[data-testid="job-retry"]').trigger('click');
    expect(bridge.api.downloadsRetry).toHaveBeenCalledWith({ id: 'j2' });
  });

  it('counts and clears every finished job in all pages, not only the rows read', async () => {
    const all = [
      job({ id: 'r', state: 'running' }),
      ...Array.from({ length: 300 }, (_, i) => job({ id: `h${i}`, state: (['done', 'failed', 'cancelled'] as const)[i % 3], file: `/d/f${i}.tif` })),
    ];
    const bridge = makeBridge({
      downloadsList: pagesOf(all),
      downloadsClear: vi.fn(async ({ states }: { states: string[] }) => {
        const before = all.length;
        all.splice(0, all.length, ...all.filter((j) => !states.includes(j.state)));
        const counts = { queued: 0, running: 0, done: 0, failed: 0, cancelled: 0 };
        for (const j of all) counts[j.state as keyof typeof counts]++;
        return ok({ removed: before - all.length, counts });
      }),
    });
    fake.api = bridge.api;
    useUiStore().trayOpen = true;
    const w = mount(DownloadsTray);
    await flushPromises();
    // One page of 100 read; the summary and the buttons count all 301.
    expect(useDownloadsStore().jobs).toHaveLength(100);
    expect(w.get('.tray-head').text()).toContain('1 running · 100 failed · 200 finished');
    expect(w.get('[data-testid="tray-clear-failed"]').text()).toBe('Clear 100 failed');
    await w.get('[data-testid="tray-clear-finished"]').trigger('click');
    await flushPromises();
    expect(bridge.api.downloadsClear).toHaveBeenCalledWith({ states: ['done', 'cancelled'] });
    expect(w.get('[data-testid="tray-cleared"]').text()).toBe('200 finished downloads cleared from the list; the files stay where they are.');
    expect(w.get('.tray-head').text()).toContain('1 running · 100 failed');
    expect(w.find('[data-testid="tray-clear-finished"]').exists()).toBe(false);
    expect(w.findAll('[data-testid="job-state"]').map((b) => b.text()).every((t) => t === 'running' || t === 'failed')).toBe(true);
    // A job that ends is counted by main again (the counts are re-read after each change).
    all[0] = { ...all[0]!, state: 'done' } as unknown as (typeof all)[number];
    bridge.emit('job:state', { id: 'r', state: 'done' });
    await flushPromises();
    expect(w.get('.tray-head').text()).toContain('100 failed · 1 finished');
  });

  it('has an empty state', async () => {
    fake.api = makeBridge().api;
    useUiStore().trayOpen = true;
    const w = mount(DownloadsTray);
    await flushPromises();
    expect(w.text()).toContain('No downloads yet');
  });
});
