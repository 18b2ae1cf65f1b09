import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { nextTick } from 'vue';
import { bridgeStandIn, job, makeBridge, pagesOf } from '../../fake-bridge';
import { useDownloadsStore } from '../../../../renderer/src/features/downloads/stores/downloads';
import { useUiStore } from '../../../../renderer/src/platform/stores/ui';

const fake = bridgeStandIn();

beforeEach(() => setActivePinia(createPinia()));

describe('downloads store', () => {
  it('follows job:state and download:progress events', async () => {
    const running = job({ id: 'a', state: 'running', total: 1000 });
    const bridge = makeBridge({ downloadsList: pagesOf([running]) });
    fake.api = bridge.api;
    const d = useDownloadsStore();
    await d.start();
    expect(d.jobs).toHaveLength(1);
    bridge.emit('download:progress', { jobId: 'a', bytes: 250, total: 1000, rateBytesPerSec: 5e5, etaSec: 2 });
    expect(d.progressOf(d.jobs[0]!)).toEqual({ bytes: 250, total: 1000, rateBytesPerSec: 5e5, etaSec: 2 });
    expect(d.overall).toBeCloseTo(0.25);
    bridge.emit('job:state', { ...running, state: 'done', bytes: 1000, file: '/dl/x.tif', libraryId: 'lib1' });
    expect(d.jobs[0]).toMatchObject({ state: 'done', file: '/dl/x.tif', libraryId: 'lib1' });
    expect(d.progress.a).toBeUndefined();
    d.stop();
    expect(bridge.listeners.get('download:progress')!.size).toBe(0);
  });

  it('cancels, retries and reports actions the host cannot do', async () => {
    const bridge = makeBridge({ downloadsList: pagesOf([job({ id: 'b', state: 'running' })]) });
    fake.api = bridge.api;
    const d = useDownloadsStore();
    await d.refresh();
    await d.cancel('b');
    expect(d.jobs[0]!.state).toBe('cancelled');
    await d.retry('b');
    expect(d.jobs[0]!.state).toBe('queued');
    expect(await d.reveal('b')).toBe(false);
  });

  it('the "queued" toast goes when its jobs have ended, not a few seconds later', async () => {
    const queued = [job({ id: 'c', state: 'queued' }), job({ id: 'd', state: 'queued' })];
    const bridge = makeBridge({ downloadsList: pagesOf(queued) });
    fake.api = bridge.api;
    const d = useDownloadsStore();
    const ui = useUiStore();
    await d.start();
    d.notifyQueued(['c', 'd'], '2 downloads queued');
    ui.notify('Copied', 'ok');
    expect(ui.toasts.map((t) => t.text)).toEqual(['2 downloads queued', 'Copied']);
    bridge.emit('job:state', { ...queued[0]!, state: 'running' });
    bridge.emit('job:state', { ...queued[1]!, state: 'done' });
    await nextTick();
    expect(ui.toasts.map((t) => t.text)).toEqual(['2 downloads queued', 'Copied']);
    bridge.emit('job:state', { ...queued[0]!, state: 'failed' });
    await nextTick();
    expect(ui.toasts.map((t) => t.text)).toEqual(['Copied']);
    // Jobs that ended before the toast was raised do not leave a "queued" toast behind.
    d.notifyQueued(['d'], '1 download queued');
    await nextTick();
    expect(ui.toasts.map((t) => t.text)).toEqual(['Copied']);
    d.stop();
  });
});
