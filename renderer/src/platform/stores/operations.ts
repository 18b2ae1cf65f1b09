import { defineStore } from 'pinia';
import { computed, toRaw } from 'vue';
import type { ResponseOf } from '../../../../preload/contract';
import type { Call } from '../request';
import { perConnection } from './per-connection';

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
  const { request, load } = perConnection<ResponseOf<'service:operations'>>((bridge) => bridge.serviceOperations());
  // Read-only schemas: plain objects (no reactive proxies), so reading a form's fields from them is cheap.
  const operations = computed(() => toRaw(request.data)?.operations ?? []);

  /** One operation by key, once loaded. */
  function get(key: OperationKey | string): OpenOperation | null {
    return operations.value.find((op) => op.key === key) ?? null;
  }

  /** The call of a spec-built operation, for a request to run; its result's data is the service's Data. */
  function call(key: OperationKey | string, input: { params?: Record<string, unknown>; body?: unknown } = {}): Call<unknown> {
    return async (bridge) => {
      const r = await bridge.serviceCall({ key, ...input });
      return r.ok ? { ok: true, data: r.data.data } : r;
    };
  }

  return { request, operations, load, get, call };
});
