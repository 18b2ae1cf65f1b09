import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import type { IpcError, RequestOf, ResponseOf } from '../../../../../preload/contract';
import { getBridge } from '../../../bridge';
import { useSessionStore } from '../../../stores/session';

/** A watch as main reports it. */
export type WatchItem = ResponseOf<'watches:list'>['watches'][number];
/** What the create/edit form sends. */
export type WatchInput = RequestOf<'watches:create'>;
/** Spend of the month against the budget. */
export type SpendInfo = ResponseOf<'spend:get'>;

/** A watch form prefilled from elsewhere ("Watch this order"), opened by the Watches panel. */
export interface WatchDraft {
  input: WatchInput;
  /** What it was prefilled from, for the form's heading. */
  from: string;
}

/**
 * Watches of the active profile (kept up to date from main's `watch:changed` events), the form
 * draft other panels hand over, and the month's spend against the budget.
 */
export const useWatchesStore = defineStore('watches', () => {
  const session = useSessionStore();
  const list = ref<WatchItem[]>([]);
  const loading = ref(false);
  const error = ref<IpcError | null>(null);
  const draft = ref<WatchDraft | null>(null);
  /** The watch to scroll to and highlight (a notification was clicked). */
  const focusId = ref<string | null>(null);
  const spend = ref<SpendInfo | null>(null);
  let unsubscribe: (() => void) | null = null;

  async function load(): Promise<void> {
    loading.value = true;
    const r = await getBridge().watchesList();
    loading.value = false;
    if (r.ok) {
      list.value = r.data.watches;
      error.value = null;
    } else error.value = r.error;
  }

  function start(): void {
    if (unsubscribe) return;
    unsubscribe = getBridge().on('watch:changed', () => void load());
    void load();
  }

  /** Runs one of main's watch calls; the list follows from the change event. */
  async function act<T>(call: Promise<{ ok: true; data: T } | { ok: false; error: IpcError }>): Promise<{ ok: true; data: T } | { ok: false; error: IpcError }> {
    const r = await call;
    error.value = r.ok ? null : r.error;
    return r;
  }

  const create = (input: WatchInput) => act(getBridge().watchesCreate(input));
  const update = (id: string, patch: Partial<WatchInput>) => act(getBridge().watchesUpdate({ id, patch }));
  const remove = (id: string, deleteFiles: boolean) => act(getBridge().watchesDelete({ id, deleteFiles }));
  const pause = (id: string) => act(getBridge().watchesPause({ id }));
  const resume = (id: string, pastCap = false) => act(getBridge().watchesResume({ id, pastCap }));
  const runNow = (id: string) => act(getBridge().watchesRun({ id }));

  /** Month-to-date spend plus a cost (0: just the month so far). */
  async function loadSpend(costEur = 0): Promise<SpendInfo | null> {
    const r = await getBridge().spendGet({ costEur });
    if (r.ok && costEur === 0) spend.value = r.data;
    return r.ok ? r.data : null;
  }

  async function setBudget(budgetEur: number | null): Promise<{ ok: boolean; error?: IpcError }> {
    const r = await getBridge().spendSetBudget({ budgetEur });
    if (r.ok) await loadSpend();
    return r.ok ? { ok: true } : { ok: false, error: r.error };
  }

  /** Opens the Watches form prefilled. */
  function openDraft(d: WatchDraft): void {
    draft.value = d;
  }

  const needsAttention = computed(() => list.value.filter((w) => w.state !== 'active').length);

  watch(() => session.generation, () => {
    list.value = [];
    spend.value = null;
    if (unsubscribe) void load();
  });

  return { list, loading, error, draft, focusId, spend, needsAttention, start, load, create, update, remove, pause, resume, runNow, loadSpend, setBudget, openDraft };
});
