import { flushPromises } from '@vue/test-utils';
import { createPinia, defineStore, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Result } from '../../../../preload/contract';

import { perConnection } from '../../../../renderer/src/platform/stores/per-connection';
import { useSessionStore } from '../../../../renderer/src/platform/stores/session';
import { bridgeStandIn, makeBridge } from '../../fake-bridge';

// A per-connection list (models, operations): one call per connection however many panels ask,
// dropped and fetched again when the profile or key changes.

describe('perConnection', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    // Each call gets the page's bridge.
    bridgeStandIn().api = makeBridge().api;
  });

  it('loads once per connection, shares a call in flight, and reloads a list in use after a new connection', async () => {
    let n = 0;
    let release!: () => void;
    const call = vi.fn(() => new Promise<Result<{ n: number }>>((resolve) => {
      n++;
      const value = n;
      release = () => resolve({ ok: true, data: { n: value } });
    }));
    const useList = defineStore('list', () => perConnection(call));
    const list = useList();
    const a = list.load();
    const b = list.load();
    expect(call).toHaveBeenCalledTimes(1);
    release();
    await Promise.all([a, b]);
    expect(list.request.data).toEqual({ n: 1 });
    await list.load();
    expect(call).toHaveBeenCalledTimes(1);
    const forced = list.load(true);
    expect(call).toHaveBeenCalledTimes(2);
    release();
    await forced;
    expect(list.request.data).toEqual({ n: 2 });

    // Another profile or key: the old answer goes at once, the list is fetched again.
    useSessionStore().generation++;
    await flushPromises();
    expect(list.request.data).toBeNull();
    expect(call).toHaveBeenCalledTimes(3);
    release();
    await flushPromises();
    expect(list.request.data).toEqual({ n: 3 });
  });

  it('a list never loaded is not fetched when the connection changes', async () => {
    const call = vi.fn(async (): Promise<Result<number>> => ({ ok: true, data: 1 }));
    const useList = defineStore('idle', () => perConnection(call));
    useList();
    useSessionStore().generation++;
    await flushPromises();
    expect(call).not.toHaveBeenCalled();
  });
});
