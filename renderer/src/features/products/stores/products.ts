import { defineStore } from 'pinia';
import { computed, reactive, ref, watch } from 'vue';
import { findDate, findGeometry, findKey, findRows, type JsonObject } from '../../../platform/lib/recognise';
import { createRequest } from '../../../platform/request';
import { useAoiStore } from '../../../platform/stores/aoi';
import { useOperationsStore } from '../../../platform/stores/operations';
import { useSessionStore } from '../../../platform/stores/session';

/** Which list the Products panel shows. */
export type ProductsTab = 'products' | 'plans';

/** One product or planned acquisition, with what the list and map need found in its fields. */
export interface ProductItem {
  id: string;
  row: JsonObject;
  date: string | null;
  constellation: string | null;
  geometry: unknown;
}

const OPS: Record<ProductsTab, string> = { products: 'satelliteProducts.composite', plans: 'satelliteProducts.acquisitionPlans' };

function itemsOf(data: unknown, prefix: string): ProductItem[] {
  const rows = findRows(data)?.rows ?? [];
  return rows.map((row, i) => {
    const idField = findKey(row, /id$|guid$/i, (v) => typeof v === 'string');
    return {
      id: `${prefix}:${(idField?.value as string | undefined) ?? i}:${i}`,
      row,
      date: findDate(row)?.value.slice(0, 10) ?? null,
      constellation: (findKey(row, /constellation/i, (v) => typeof v === 'string')?.value as string | undefined) ?? null,
      geometry: findGeometry(row)?.geometry ?? null,
    };
  });
}

/**
 * Satellite products over the AOI and planned acquisitions: requests built
 * from the spec (the AOI filled in), results listed by date and constellation
 * with filters, and drawn on the map by the panel.
 */
export const useProductsStore = defineStore('products', () => {
  const aoi = useAoiStore();
  const session = useSessionStore();
  const operations = useOperationsStore();
  const tab = ref<ProductsTab>('products');
  const requests = { products: createRequest<unknown>({ cancelsInMain: true }), plans: createRequest<unknown>({ cancelsInMain: true }) };
  const filters = reactive({ constellations: [] as string[], from: '', to: '', text: '' });
  const hovered = ref<string | null>(null);
  const selected = ref<string | null>(null);

  async function run(which: ProductsTab, form: Record<string, unknown>): Promise<void> {
    if (!aoi.valid) return;
    await requests[which].run(operations.call(OPS[which], { body: { ...aoi.toRequest(), ...form } }));
    filters.constellations = [];
  }

  const items = computed(() => ({
    products: itemsOf(requests.products.data, 'p'),
    plans: itemsOf(requests.plans.data, 'a'),
  }));

  const constellations = computed(() => [...new Set(items.value[tab.value].map((i) => i.constellation).filter((c): c is string => !!c))].sort());

  /** The current tab's items after the filters, sorted by date then constellation. */
  const filtered = computed(() => {
    const text = filters.text.trim().toLowerCase();
    return items.value[tab.value]
      .filter((i) => !filters.constellations.length || (i.constellation && filters.constellations.includes(i.constellation)))
      .filter((i) => !filters.from || (i.date ?? '') >= filters.from)
      .filter((i) => !filters.to || (i.date ?? '') <= filters.to)
      .filter((i) => !text || JSON.stringify(i.row).toLowerCase().includes(text))
      .sort((a, b) => (a.date ?? '').localeCompare(b.date ?? '') || (a.constellation ?? '').localeCompare(b.constellation ?? ''));
  });

  /** The filtered items grouped by date. */
  const byDate = computed(() => {
    const groups = new Map<string, ProductItem[]>();
    for (const i of filtered.value) groups.set(i.date ?? 'no date', [...(groups.get(i.date ?? 'no date') ?? []), i]);
    return [...groups.entries()].map(([date, list]) => ({ date, items: list }));
  });

  watch(() => session.generation, () => {
    requests.products.reset();
    requests.plans.reset();
  });

  return { tab, requests, filters, hovered, selected, items, constellations, filtered, byDate, run };
});
