import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { job, makeBridge, ok } from '../fake-bridge';

const fake = vi.hoisted(() => ({ api: null as unknown }));
vi.mock('../../../renderer/src/bridge', () => ({ getBridge: () => fake.api }));

const { useDownloadsStore } = await import('../../../renderer/src/stores/downloads');

beforeEach(() => setActivePinia(createPinia()));

describe('downloads store', () => {
  it('follows job:state and download:progress events', async () => {
    const running = job({ id: 'a', state: 'running', total: 1000 });
    const bridge = makeBridge({ downloadsList: async () => ok({ jobs: [running] }) });
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
    const bridge = makeBridge({ downloadsList: async () => ok({ jobs: [job({ id: 'b', state: 'running' })] }) });
    fake.api = bridge.api;
    const d = useDownloadsStore();
    await d.refresh();
    await d.cancel('b');
    expect(d.jobs[0]!.state).toBe('cancelled');
    await d.retry('b');
    expect(d.jobs[0]!.state).toBe('queued');
    expect(await d.reveal('b')).toBe(false);
  });
});
