import { defineStore } from 'pinia';
import { computed, watch } from 'vue';
import type { ResponseOf, Result } from '../../../preload/contract';
import { getBridge } from '../bridge';
import { createRequest } from '../lib/request';
import { useSessionStore } from './session';

/** An operation built from the service's specification, with the JSON Schemas of its parameters and body. */
export type OpenOperation = ResponseOf<'service:operations'>['operations'][number];

/** Keys of the spec-built operations the app uses. */
export type OperationKey =
  | 'billing.redeemVoucher'
  | 'satelliteProducts.composite'
  | 'satelliteProducts.acquisitionPlans'
  | 'tasking.searchTiles'
  | 'tasking.orders.list'
  | 'tasking.orders.details'
  | 'tasking.orders.cancel'
  | 'satelliteImages.geographyComposite';

/**
 * Spec-built operations (vouchers, products, plans, tile search, orders): their
 * schemas are loaded once per connection; `call` runs one through
 * `service:call`. Forms are drawn from `get(key).body` / `.parameters`.
 */
export const useOperationsStore = defineStore('operations', () => {
  const session = useSessionStore();
  const request = createRequest<ResponseOf<'service:operations'>>();
  let loadedFor = -1;
  let inflight: Promise<void> | null = null;

  const operations = computed(() => request.data?.operations ?? []);

  /** Loads the operations unless cached for the current connection. */
  function load(force = false): Promise<void> {
    if (!force && loadedFor === session.generation && (request.data || inflight)) return inflight ?? Promise.resolve();
    loadedFor = session.generation;
    inflight = request.run(() => getBridge().serviceOperations()).then(() => {
      inflight = null;
    });
    return inflight;
  }

  // A new connection (profile, key) may serve another list: drop it, and reload it if it was in use.
  watch(() => session.generation, () => {
    const wasLoaded = loadedFor >= 0;
    request.reset();
    loadedFor = -1;
    inflight = null;
    if (wasLoaded) void load();
  });

  /** One operation by key, once loaded. */
  function get(key: OperationKey | string): OpenOperation | null {
    return operations.value.find((op) => op.key === key) ?? null;
  }

  /** Calls a spec-built operation; the result's data is the service's Data. */
  async function call(key: OperationKey | string, input: { params?: Record<string, unknown>; body?: unknown } = {}): Promise<Result<unknown>> {
    const r = await getBridge().serviceCall({ key, ...input });
    return r.ok ? { ok: true, data: r.data.data } : r;
  }

  return { request, operations, load, get, call };
});
