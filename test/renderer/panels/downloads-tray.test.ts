// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { job, makeBridge, ok } from '../fake-bridge';

const fake = vi.hoisted(() => ({ api: null as unknown }));
vi.mock('../../../renderer/src/bridge', () => ({ getBridge: () => fake.api }));
const opened = vi.hoisted(() => ({ ids: [] as string[] }));
vi.mock('../../../renderer/src/stores/preview', () => ({ usePreviewStore: () => ({ openOnMap: async (id: string) => void opened.ids.push(id) }) }));

const DownloadsTray = (await import('../../../renderer/src/features/downloads/views/DownloadsTray.vue')).default;
const { useUiStore } = await import('../../../renderer/src/stores/ui');

beforeEach(() => {
  setActivePinia(createPinia());
  opened.ids = [];
});

describe('Downloads tray', () => {
  it('shows progress with bytes, rate and ETA, then the file, and hands "Open on map" to the library', async () => {
    const running = job({ id: 'j1', state: 'running', total: 4_000_000 });
    const bridge = makeBridge({ downloadsList: async () => ok({ jobs: [running] }) });
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

  it('offers Retry for a failed job and shows why it failed', async () => {
    const bridge = makeBridge({ downloadsList: async () => ok({ jobs: [job({ id: 'j2', state: 'failed', reason: 'The service could not be reached.', attempts: 3 })] }) });
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
