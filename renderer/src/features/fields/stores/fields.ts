import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { EventPayload, IpcError } from '../../../../../preload/contract';
import { createErrorLine, listen } from '../../../platform/request';
import {
  DEFAULT_MIN_VALID_SHARE, fieldRows,
  type FieldLatestItem, type FieldStatisticItem, type FieldWatchItem, type InspectedFile, type ParcelItem, type ParcelSetItem, type PixelRule,
} from '../model/fields';

type Answer<T> = { ok: true; data: T } | { ok: false; error: IpcError };

/** Parcels the window loads for the map and the table, at most (pages of 5 000). */
export const PARCELS_SHOWN = 20_000;
const PARCEL_PAGE = 5_000;

/** Progress of a running import or run. */
export interface Progress { done: number; total: number; etaMs: number | null }

let nextKey = 1;
const progressKey = (what: string): string => `${what}-${Date.now().toString(36)}-${nextKey++}`;

/**
 * The Fields feature's state: the parcel sets, an import (inspect, choose layer and columns,
 * progress, cancel), a statistics run (index, pixel rule, minimum valid share, progress with ETA,
 * cancel), the selected set's parcels with their latest values and changes, one parcel's dates for
 * the chart, the exports and the watch attachments. Everything is asked of main through the bridge.
 */
export const useFieldsStore = defineStore('fields', () => {
  const sets = ref<ParcelSetItem[]>([]);
  /** What failed last of the feature's calls. */
  const line = createErrorLine();
  const error = computed<IpcError | null>(() => line.error);
  const selectedId = ref<string | null>(null);
  const selected = computed(() => sets.value.find((s) => s.id === selectedId.value) ?? null);

  const inspected = ref<InspectedFile | null>(null);
  const importing = ref<Progress | null>(null);
  const skipped = ref<{ row: number; id: string | null; reason: string }[]>([]);
  let importAbort: AbortController | null = null;
  let importKey: string | null = null;

  const index = ref('ndvi');
  const rule = ref<PixelRule>('exact');
  const minValidShare = ref(DEFAULT_MIN_VALID_SHARE);
  const running = ref<Progress | null>(null);
  const lastRun = ref<{ results: number; skippedRasters: { rasterId: string; reason: string }[] } | null>(null);
  let runAbort: AbortController | null = null;
  let runKey: string | null = null;

  const parcels = shallowRef<ParcelItem[]>([]);
  const latest = shallowRef<FieldLatestItem[]>([]);
  const rows = computed(() => fieldRows(parcels.value, latest.value));
  const chart = shallowRef<{ parcelIndex: number; stats: FieldStatisticItem[] } | null>(null);
  const watches = ref<FieldWatchItem[]>([]);
  const exported = ref<{ format: 'csv' | 'gpkg'; file: string; rows: number } | null>(null);
  let unsubscribe: (() => void)[] = [];

  /** The data of an answer (its failure is the error line's). */
  const take = <T>(r: Answer<T>): T | null => (r.ok ? r.data : null);

  async function load(): Promise<void> {
    const data = take(await line.ask((bridge) => bridge.fieldsSets({})));
    if (!data) return;
    sets.value = data.sets;
    if (!selected.value && data.sets.length) await select(data.sets[0]!.id);
    if (selected.value === null) selectedId.value = null;
  }

  function onProgress(e: EventPayload<'fields:progress'>): void {
    const p = { done: e.done, total: e.total, etaMs: e.etaMs };
    if (e.key === importKey) importing.value = p;
    if (e.key === runKey) running.value = p;
  }

  function onChanged(e: EventPayload<'fields:changed'>): void {
    void load();
    if (e.setId === selectedId.value) void refresh();
  }

  function start(): void {
    if (unsubscribe.length) return;
    unsubscribe = [listen('fields:progress', onProgress), listen('fields:changed', onChanged)];
    void load();
  }

  /** Selects a set: its parcels (up to {@link PARCELS_SHOWN}), latest values and watches. */
  async function select(id: string): Promise<void> {
    selectedId.value = id;
    chart.value = null;
    const loaded: ParcelItem[] = [];
    while (loaded.length < PARCELS_SHOWN) {
      const page = take(await line.ask((bridge) => bridge.fieldsParcels({ setId: id, offset: loaded.length, limit: PARCEL_PAGE })));
      if (!page || selectedId.value !== id) break;
      loaded.push(...page.parcels);
      if (page.parcels.length < PARCEL_PAGE) break;
    }
    if (selectedId.value !== id) return;
    parcels.value = loaded;
    await refresh();
  }

  /** The selected set's latest values and attached watches again (after a run, a watch's new date). */
  async function refresh(): Promise<void> {
    const setId = selectedId.value;
    if (!setId) return;
    const l = take(await line.ask((bridge) => bridge.fieldsLatest({ setId, index: index.value, rule: rule.value })));
    if (l && setId === selectedId.value) latest.value = l.latest;
    const w = take(await line.ask((bridge) => bridge.fieldsWatches({ setId })));
    if (w && setId === selectedId.value) watches.value = w.watches;
    if (chart.value) await openParcel(chart.value.parcelIndex);
  }

  /** Main's dialog (or `file` in the download folder, where the window has no dialog) and what the file holds. */
  async function inspect(file?: string): Promise<InspectedFile | null> {
    const data = take(await line.ask((bridge) => bridge.fieldsInspect(file === undefined ? {} : { file })));
    inspected.value = data && !data.cancelled ? data : null;
    return inspected.value;
  }

  async function importFile(options: { layer?: string; idColumn: string; nameColumn?: string; name?: string }): Promise<ParcelSetItem | null> {
    const fileId = inspected.value?.fileId;
    if (!fileId) return null;
    importAbort = new AbortController();
    const key = (importKey = progressKey('import'));
    importing.value = { done: 0, total: 0, etaMs: null };
    const data = take(await line.ask((bridge) => bridge.fieldsImport({ fileId, ...options, progressKey: key }), { signal: importAbort.signal }));
    importing.value = null;
    importAbort = null;
    if (!data) return null;
    inspected.value = null;
    skipped.value = data.skipped;
    await load();
    await select(data.set.id);
    return data.set;
  }

  function cancelImport(): void {
    importAbort?.abort();
    importing.value = null;
  }

  async function run(rasterIds?: string[]): Promise<boolean> {
    const setId = selectedId.value;
    if (!setId) return false;
    runAbort = new AbortController();
    const key = (runKey = progressKey('run'));
    running.value = { done: 0, total: 0, etaMs: null };
    const data = take(await line.ask((bridge) => bridge.fieldsRun({
      setId, index: index.value, rule: rule.value, minValidShare: minValidShare.value, progressKey: key, ...(rasterIds ? { rasterIds } : {}),
    }), { signal: runAbort.signal }));
    running.value = null;
    runAbort = null;
    if (!data) return false;
    lastRun.value = data;
    await refresh();
    return true;
  }

  function cancelRun(): void {
    runAbort?.abort();
    running.value = null;
  }

  /** One parcel's dates, for its chart. */
  async function openParcel(parcelIndex: number): Promise<void> {
    const setId = selectedId.value;
    if (!setId) return;
    const data = take(await line.ask((bridge) => bridge.fieldsResults({ setId, index: index.value, rule: rule.value, parcelIndex, limit: 10_000 })));
    if (data && setId === selectedId.value) chart.value = { parcelIndex, stats: data.results };
  }

  function closeParcel(): void {
    chart.value = null;
  }

  async function exportAs(format: 'csv' | 'gpkg'): Promise<void> {
    const setId = selectedId.value;
    if (!setId) return;
    const data = take(await line.ask((bridge) => bridge.fieldsExport({ setId, index: index.value, rule: rule.value, format })));
    if (data) exported.value = { format, ...data };
  }

  async function attach(input: { watchId: string; threshold: number; direction: 'drop' | 'rise' }): Promise<boolean> {
    const setId = selectedId.value;
    if (!setId) return false;
    const data = take(await line.ask((bridge) => bridge.fieldsAttachWatch({ setId, index: index.value, rule: rule.value, minValidShare: minValidShare.value, ...input })));
    if (data) await refresh();
    return data !== null;
  }

  async function detach(watchId: string): Promise<void> {
    const setId = selectedId.value;
    if (!setId) return;
    if (take(await line.ask((bridge) => bridge.fieldsDetachWatch({ setId, watchId })))) await refresh();
  }

  async function remove(setId: string): Promise<void> {
    if (!take(await line.ask((bridge) => bridge.fieldsDelete({ setId })))) return;
    if (selectedId.value === setId) {
      selectedId.value = null;
      parcels.value = [];
      latest.value = [];
      chart.value = null;
    }
    await load();
  }

  function stop(): void {
    for (const u of unsubscribe) u();
    unsubscribe = [];
  }

  return {
    sets, error, selectedId, selected, inspected, importing, skipped, index, rule, minValidShare, running, lastRun,
    parcels, latest, rows, chart, watches, exported,
    start, stop, load, select, refresh, inspect, importFile, cancelImport, run, cancelRun, openParcel, closeParcel, exportAs, attach, detach, remove,
  };
});
