import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import type { EventPayload, IpcError, RequestOf, ResponseOf, WATCH_DATES_PAGE } from '../../../../../preload/contract';
import { ask, createErrorLine, createRequest, listen } from '../../../platform/request';
import { useSessionStore } from '../../../platform/stores/session';
import { useSpendStore } from '../../../platform/stores/spend';

/** A watch as main summarises it: its dates counted by state and only the latest ones. */
export type WatchItem = ResponseOf<'watches:list'>['watches'][number];
/** One date of a watch. */
export type WatchDateItem = ResponseOf<'watches:dates'>['dates'][number];
/** A date as a card's chip shows it. */
export type WatchChip = WatchItem['latest'][number];
type Answer<T> = { ok: true; data: T } | { ok: false; error: IpcError };

/** main's largest `watches:dates` page (the contract stays out of the window's bundle: it is zod). */
const DATES_PAGE: typeof WATCH_DATES_PAGE = 500;

/** The chip of a paged date, as main makes those of a summary (preload/contract `watchChip`). */
export function watchChip(d: WatchDateItem): WatchChip {
  return { date: d.date, state: d.state, ...(d.note === undefined ? {} : { note: d.note }), libraryId: d.libraryIds[0] ?? null };
}
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
 * Watches of the active profile as summaries (each `watch:changed` event carries the changed one,
 * applied by id), their earlier dates paged on request, the form
 * draft other panels hand over, and the month's spend against the budget.
 */
export const useWatchesStore = defineStore('watches', () => {
  const session = useSessionStore();
  const list = ref<WatchItem[]>([]);
  const listReq = createRequest<ResponseOf<'watches:list'>>();
  const loading = computed(() => listReq.loading);
  /** What failed last of reading the list, a watch's action and a page of its earlier dates. */
  const line = createErrorLine();
  const error = computed<IpcError | null>(() => line.error);
  const draft = ref<WatchDraft | null>(null);
  /** The watch to scroll to and highlight (a notification was clicked). */
  const focusId = ref<string | null>(null);
  const spendStore = useSpendStore();
  /** The month's spend against the budget: main's one figure, followed through the spend store. */
  const spend = computed<SpendInfo | null>(() => spendStore.month);
  let unsubscribe: (() => void) | null = null;

  async function load(): Promise<void> {
    const r = line.note(await listReq.run((bridge) => bridge.watchesList()));
    if (r.ok) list.value = r.data.watches;
  }

  /** Applies one changed watch by id: replaced, added (when it is this profile's) or removed. */
  function apply(e: EventPayload<'watch:changed'>): void {
    const i = list.value.findIndex((w) => w.id === e.id);
    if (e.deleted) {
      if (i >= 0) list.value.splice(i, 1);
    } else if (!e.watch) void load();
    else if (i >= 0) list.value[i] = e.watch;
    else if (!list.value.length || list.value[0]!.profileId === e.watch.profileId) list.value.push(e.watch);
  }

  function start(): void {
    if (unsubscribe) return;
    unsubscribe = listen('watch:changed', apply);
    void load();
  }

  /** `limit` (≤ DATES_PAGE) of a watch's dates from `offset`, oldest first, and how many it holds; a failure is the store's error. */
  const datesPage = (id: string, offset: number, limit: number) => line.ask((bridge) => bridge.watchesDates({ id, offset, limit }));

  /** Every date of a watch, a page at a time. */
  async function allDates(id: string): Promise<Answer<WatchDateItem[]>> {
    const out: WatchDateItem[] = [];
    for (;;) {
      const r = await ask((bridge) => bridge.watchesDates({ id, offset: out.length, limit: DATES_PAGE }));
      if (!r.ok) return r;
      out.push(...r.data.dates);
      if (!r.data.dates.length || out.length >= r.data.total) return { ok: true, data: out };
    }
  }

  // A watch's actions: the list follows from the change event.
  const create = (input: WatchInput) => line.ask((bridge) => bridge.watchesCreate(input));
  const update = (id: string, patch: Partial<WatchInput>) => line.ask((bridge) => bridge.watchesUpdate({ id, patch }));
  const remove = (id: string, deleteFiles: boolean) => line.ask((bridge) => bridge.watchesDelete({ id, deleteFiles }));
  const pause = (id: string) => line.ask((bridge) => bridge.watchesPause({ id }));
  const resume = (id: string, pastCap = false) => line.ask((bridge) => bridge.watchesResume({ id, pastCap }));
  const runNow = (id: string) => line.ask((bridge) => bridge.watchesRun({ id }));

  /** Month-to-date spend plus a cost (0: just the month so far, which the store then follows). */
  async function loadSpend(costEur = 0): Promise<SpendInfo | null> {
    if (costEur === 0) return spendStore.monthSoFar();
    const r = await ask((bridge) => bridge.spendGet({ costEur }));
    return r.ok ? r.data : null;
  }

  async function setBudget(budgetEur: number | null): Promise<{ ok: boolean; error?: IpcError }> {
    const r = await ask((bridge) => bridge.spendSetBudget({ budgetEur }));
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
    if (unsubscribe) void load();
  });

  return { list, loading, error, draft, focusId, spend, needsAttention, start, load, datesPage, allDates, create, update, remove, pause, resume, runNow, loadSpend, setBudget, openDraft };
});
