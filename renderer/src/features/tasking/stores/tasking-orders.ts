import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef, watch } from 'vue';
import type { IpcError, Result } from '../../../../../preload/contract';
import { buildBody, describeFields, initialValues, type FieldDescriptor } from '../../../platform/lib/json-schema';
import { createRequest, type RequestState } from '../../../platform/request';
import { deadlineInfo, type DeadlineInfo } from '../model/tasking-deadline';
import { mergeOrderRows, type OrderRow } from '../model/order-rows';
import { prefillFromRow, rowsOf, type OrderSummary } from '../model/tasking-records';
import type { JsonObject } from '../../../platform/lib/recognise';
import { useOperationsStore } from '../../../platform/stores/operations';
import { useSessionStore } from '../../../platform/stores/session';
import { useUiStore } from '../../../platform/stores/ui';
import { yieldToWindow } from '../../../platform/lib/idle';

/** Spec-built operation keys of order tracking. */
export const ORDER_OPERATIONS = { list: 'tasking.orders.list', details: 'tasking.orders.details', cancel: 'tasking.orders.cancel' } as const;

/** How often the list refreshes while the tasking panel is open. */
export const ORDER_POLL_MS = 10_000;

export type { OrderRow } from '../model/order-rows';

/** A status change seen between two refreshes of the list. */
export interface StatusChange {
  from: string;
  to: string;
  at: number;
}

/** A recurring order's renewal deadline as the panel shows it. */
export interface RenewalDeadline extends DeadlineInfo {
  key: string;
  orderId: string | null;
}

/** A cancel waiting for the analyst's confirmation. */
export interface PendingCancel {
  key: string;
  params: Record<string, unknown>;
  summary: OrderSummary | null;
}

/**
 * Tasking order tracking: the list (parameters from the spec, e.g. recurring-only
 * or include-expired filters when the service offers them), details and cancel of
 * the selected order with parameters prefilled from its row by name (the GUID
 * parameter with the row's GUID), status
 * changes between refreshes (manual, or on a timer while the panel is open), and
 * renewal deadlines of recurring orders with a warning under 72 hours.
 */
export const useTaskingOrdersStore = defineStore('taskingOrders', () => {
  const ops = useOperationsStore();
  const session = useSessionStore();

  const list: RequestState<unknown> = createRequest<unknown>();
  const details: RequestState<unknown> = createRequest<unknown>();
  // Cancelling is never retried automatically, not even on 429.
  const cancelReq: RequestState<unknown> = createRequest<unknown>({ rateLimitDelaysMs: [] });

  const listOp = computed(() => ops.get(ORDER_OPERATIONS.list));
  const detailsOp = computed(() => ops.get(ORDER_OPERATIONS.details));
  const cancelOp = computed(() => ops.get(ORDER_OPERATIONS.cancel));
  const listFields = computed<FieldDescriptor[]>(() => describeFields(listOp.value?.parameters));
  const detailsFields = computed<FieldDescriptor[]>(() => describeFields(detailsOp.value?.parameters));
  const cancelFields = computed<FieldDescriptor[]>(() => describeFields(cancelOp.value?.parameters));

  const listParams = reactive<Record<string, unknown>>({});
  const detailsParams = reactive<Record<string, unknown>>({});
  const cancelParams = reactive<Record<string, unknown>>({});

  const selectedKey = ref<string | null>(null);
  /** Replaced on each refresh, never mutated: a shallow ref, so reading 1,000 changes goes through no proxies. */
  const statusChanges = shallowRef<Readonly<Record<string, StatusChange>>>({});
  const lastStatus = new Map<string, string>();
  /** Clock of countdowns (ms); ticks while the panel is open. */
  const now = ref(Date.now());
  /** Result of the last cancel, with the order it was for. */
  const cancelResult = ref<{ key: string; orderId: string | null; data: unknown } | null>(null);
  const pendingCancel = ref<PendingCancel | null>(null);
  const warnedDeadlines = new Set<string>();

  function reset(target: Record<string, unknown>, values: Record<string, unknown>): void {
    for (const k of Object.keys(target)) delete target[k];
    Object.assign(target, values);
  }

  /**
   * The listed orders, merged by key on each refresh (model/order-rows.ts): an unchanged order keeps
   * its row object, so a poll of 1,000 orders redraws only the rows and footprints that changed.
   * A shallow ref: rows are replaced, never mutated. Merged by {@link refresh} in a task of its own
   * after the answer's (reading 1,000 orders off the wire, then merging and redrawing them, was one
   * long task); a reset list (another connection) has none at once.
   */
  const rows = shallowRef<OrderRow[]>([]);
  /** When the rows were last read from the service (ms), or null before the first list: how old a status shown is. */
  const listedAt = ref<number | null>(null);
  /** Merges started (see {@link refresh}): only the latest one's rows are kept. */
  let merges = 0;
  watch(() => list.data, (data) => {
    if (data == null) {
      rows.value = [];
      listedAt.value = null;
    }
  }, { flush: 'sync' });
  const selected = computed<OrderRow | null>(() => rows.value.find((r) => r.key === selectedKey.value) ?? null);

  /** Fills the details and cancel parameters from the selected row (by name, case-insensitive) over their defaults. */
  function prefill(): void {
    const row = selected.value?.row ?? null;
    const fill = (fields: FieldDescriptor[]) =>
      row ? prefillFromRow(fields.map((f) => f.name), row, fields.filter((f) => f.kind === 'guid').map((f) => f.name)) : {};
    reset(detailsParams, initialValues(detailsFields.value, fill(detailsFields.value)));
    reset(cancelParams, initialValues(cancelFields.value, fill(cancelFields.value)));
  }

  // The parameter forms follow the discovered spec: new spec, new fields with their defaults.
  watch(listFields, (fields) => reset(listParams, initialValues(fields)), { immediate: true });
  watch(detailsFields, () => prefill(), { immediate: true });
  watch(cancelFields, () => prefill(), { immediate: true });

  /** Selects an order (by its key); its details and cancel parameters are prefilled from its row. */
  function select(key: string | null): void {
    if (selectedKey.value !== key) details.reset();
    selectedKey.value = key;
    prefill();
  }

  /** Loads the spec-built operations (once per connection). */
  async function ensureOperations(): Promise<boolean> {
    await ops.load();
    return !!listOp.value;
  }

  /** Lists the orders with the current parameters; records status changes since the last list. */
  async function refresh(): Promise<Result<unknown>> {
    if (!(await ensureOperations())) {
      const error: IpcError = { kind: 'not-found', message: "The service's specification has no orders list operation." };
      list.error = error;
      return { ok: false, error };
    }
    const params = paramsOf(listFields.value, listParams);
    let records: JsonObject[] = [];
    const r = await list.run(async (bridge, signal) => {
      const answer = await ops.call(ORDER_OPERATIONS.list, { params })(bridge, signal);
      if (!answer.ok) return answer;
      // The request keeps only that the list answered: an answer's records live on in the rows they
      // make (a changed order's), not in the whole answer held until the next poll (1,000 orders that
      // lived long enough for the old generation, then a full collection in a later poll).
      records = rowsOf(answer.data);
      return { ok: true, data: true };
    });
    now.value = Date.now();
    if (r.ok) {
      // The window draws and takes input between the answer and the list's update, and while the
      // changed orders are read (in slices); a later answer's merge wins over this one, and a list
      // reset meanwhile (another connection) keeps none.
      const mine = ++merges;
      await yieldToWindow();
      const next = await mergeOrderRows(rows.value, records);
      if (mine !== merges || list.data == null) return r;
      rows.value = next;
      listedAt.value = Date.now();
      noteStatuses();
    }
    return r;
  }

  function noteStatuses(): void {
    const at = Date.now();
    const next: Record<string, StatusChange> = {};
    for (const { key, summary } of rows.value) {
      const status = summary.status;
      if (status === null) continue;
      const before = lastStatus.get(key);
      if (before !== undefined && before !== status) next[key] = { from: before, to: status, at };
      else if (statusChanges.value[key] && at - statusChanges.value[key]!.at < 60_000) next[key] = statusChanges.value[key]!;
      lastStatus.set(key, status);
    }
    statusChanges.value = next;
    // Keep the selection's parameters in step with a refreshed row.
    if (selectedKey.value && !rows.value.some((r) => r.key === selectedKey.value)) select(null);
    else prefill();
  }

  /** Runs the details operation with the (prefilled, possibly edited) parameters. */
  async function loadDetails(): Promise<Result<unknown>> {
    await ensureOperations();
    return details.run(ops.call(ORDER_OPERATIONS.details, { params: paramsOf(detailsFields.value, detailsParams) }));
  }

  /** Puts a GUID picked in a result view ("use in form") into the GUID parameters of details and cancel. */
  function useGuid(value: string): void {
    for (const [fields, target] of [[detailsFields.value, detailsParams], [cancelFields.value, cancelParams]] as const) {
      const guids = fields.filter((f) => f.kind === 'guid');
      if (guids.length === 1) target[guids[0]!.name] = value;
    }
  }

  /** Opens the cancel confirmation for the selected order with the current cancel parameters. */
  function requestCancel(): void {
    const sel = selected.value;
    pendingCancel.value = { key: sel?.key ?? '', params: paramsOf(cancelFields.value, cancelParams), summary: sel?.summary ?? null };
    cancelReq.error = null;
    cancelResult.value = null;
  }

  /** Drops a pending cancel. */
  function dismissCancel(): void {
    pendingCancel.value = null;
  }

  let cancelling = false;
  /** Sends the confirmed cancel once (double clicks are ignored), then refreshes the list whatever the result. */
  async function confirmCancel(): Promise<Result<unknown> | null> {
    const pending = pendingCancel.value;
    if (!pending || cancelling) return null;
    cancelling = true;
    try {
      const r = await cancelReq.run(ops.call(ORDER_OPERATIONS.cancel, { params: pending.params }));
      if (r.ok) {
        cancelResult.value = { key: pending.key, orderId: pending.summary?.id ?? null, data: r.data };
        pendingCancel.value = null;
      }
      await refresh();
      return r;
    } finally {
      cancelling = false;
    }
  }

  // One deadline for all (the 1st of next month, UTC): formatted when the clock ticks, not per recurring order nor per poll.
  const deadline = computed(() => deadlineInfo(now.value));
  const renewals = computed<RenewalDeadline[]>(() => {
    const recurring = rows.value.filter(({ summary: s }) => s.recurring === true && !s.ended && !s.renewalStopped);
    // Formatted only when some order renews (the first local format loads the time zone data).
    if (!recurring.length) return [];
    const info = deadline.value;
    return recurring.map(({ key, summary }) => ({ key, orderId: summary.id, ...info }));
  });
  /** Recurring orders whose renewal deadline is less than 72 hours away. */
  const urgentRenewals = computed(() => renewals.value.filter((r) => r.warn && r.remainingMs > 0));

  // Warn once per order and deadline, even when the panel is not in view.
  watch(urgentRenewals, (list) => {
    const fresh = list.filter((r) => !warnedDeadlines.has(`${r.key}@${r.utc}`));
    if (!fresh.length) return;
    for (const r of fresh) warnedDeadlines.add(`${r.key}@${r.utc}`);
    const what = fresh.length === 1 ? `Recurring order ${fresh[0]!.orderId ?? ''} renews` : `${fresh.length} recurring orders renew`;
    useUiStore().notify(`${what} at ${fresh[0]!.utc} (in ${fresh[0]!.countdown}); cancel before then any that is no longer wanted.`, 'warn', 10_000);
  });

  let pollTimer: ReturnType<typeof setInterval> | null = null;
  let clockTimer: ReturnType<typeof setInterval> | null = null;
  /** Refreshes the list now and every `ms` while the panel is open; ticks the countdown clock. */
  function startPolling(ms = ORDER_POLL_MS): void {
    stopPolling();
    void refresh();
    pollTimer = setInterval(() => {
      if (!list.loading) void refresh();
    }, ms);
    clockTimer = setInterval(() => (now.value = Date.now()), 15_000);
  }

  /** Stops the timers (the panel closed). */
  function stopPolling(): void {
    if (pollTimer) clearInterval(pollTimer);
    if (clockTimer) clearInterval(clockTimer);
    pollTimer = clockTimer = null;
  }

  watch(() => session.generation, () => {
    list.reset();
    details.reset();
    cancelReq.reset();
    selectedKey.value = null;
    lastStatus.clear();
    statusChanges.value = {};
    cancelResult.value = null;
    pendingCancel.value = null;
  });

  return {
    list, details, cancelReq, listOp, detailsOp, cancelOp, listFields, detailsFields, cancelFields,
    listParams, detailsParams, cancelParams, rows, listedAt, selected, selectedKey, statusChanges, now,
    renewals, urgentRenewals, cancelResult, pendingCancel,
    select, prefill, useGuid, refresh, loadDetails, requestCancel, dismissCancel, confirmCancel, startPolling, stopPolling, ensureOperations,
  };
});

/** Parameter values as the call sends them (schema types; empty values left out so the service applies its defaults). */
export function paramsOf(fields: FieldDescriptor[], values: Record<string, unknown>): Record<string, unknown> {
  return buildBody(fields, values);
}
