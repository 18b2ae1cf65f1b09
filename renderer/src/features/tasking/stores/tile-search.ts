import { defineStore } from 'pinia';
import { computed, reactive, ref, watch } from 'vue';
import type { IpcError, Result } from '../../../../../preload/contract';
import { buildBody, describeFields, initialValues, type FieldDescriptor } from '../../../platform/lib/json-schema';
import { createRequest, type RequestState } from '../../../platform/request';
import { extractTiles, type TileCell } from '../model/tasking-records';
import { useAoiStore } from '../../../platform/stores/aoi';
import { useOperationsStore } from '../../../platform/stores/operations';
import { useSessionStore } from '../../../platform/stores/session';

/** The spec-built tile search operation. */
export const TILE_SEARCH_OPERATION = 'tasking.searchTiles';

/** One tile's composite estimate or download enqueue outcome. */
export interface TileOutcome {
  guid: string;
  mini: boolean;
  result: Result<unknown>;
}

/**
 * Tile search for tasking: the spec's tile search over the AOI, the selection of tiles or
 * mini-tiles (the order's area in tile mode), and composite estimates and downloads of the
 * selected cells.
 */
export const useTileSearchStore = defineStore('tasking-tiles', () => {
  const aoi = useAoiStore();
  const ops = useOperationsStore();
  const session = useSessionStore();


  const tileSearchOp = computed(() => ops.get(TILE_SEARCH_OPERATION));
  const tileSearchAllFields = computed<FieldDescriptor[]>(() => describeFields(tileSearchOp.value?.body));
  const isAoiField = (f: FieldDescriptor) => /^(wkt|geojson)$/i.test(f.name);
  /** Tile search body fields the analyst fills in (the AOI fields are filled from the AOI). */
  const tileSearchFields = computed(() => tileSearchAllFields.value.filter((f) => !isAoiField(f)));
  const tileSearchValues = reactive<Record<string, unknown>>({});
  watch(tileSearchFields, (fields) => {
    for (const k of Object.keys(tileSearchValues)) delete tileSearchValues[k];
    Object.assign(tileSearchValues, initialValues(fields));
  }, { immediate: true });
  const tileSearch: RequestState<unknown> = createRequest<unknown>({ cancelsInMain: true });
  const tileSearchMini = ref(false);
  const tiles = computed<TileCell[]>(() => extractTiles(tileSearch.data, tileSearchMini.value));
  const selectedTiles = ref<string[]>([]);
  const selectedCells = computed(() => {
    const set = new Set(selectedTiles.value);
    return tiles.value.filter((t) => set.has(t.guid));
  });

  /** The tile search body: the spec's fields as filled in, plus the AOI under the spec's own property name. */
  function tileSearchBody(): { body: Record<string, unknown> | null; error: string | null } {
    if (!tileSearchOp.value) return { body: null, error: "The service's specification has no tile search operation." };
    const body = buildBody(tileSearchFields.value, tileSearchValues);
    if (!aoi.valid) return { body: null, error: aoi.problems[0]?.message ?? 'Draw or import an area of interest first.' };
    const area = aoi.toRequest();
    const [key, value] = Object.entries(area)[0]!;
    const field = tileSearchAllFields.value.find((f) => f.name.toLowerCase() === key.toLowerCase());
    body[field?.name ?? key] = value;
    return { body, error: null };
  }

  /** Searches the tiles (or mini-tiles) over the AOI; the selection starts empty. */
  async function searchTiles(): Promise<Result<unknown>> {
    await ops.load();
    const { body, error } = tileSearchBody();
    if (!body) {
      const e: IpcError = { kind: 'validation', message: error ?? 'Cannot search tiles.' };
      tileSearch.error = e;
      return { ok: false, error: e };
    }
    const miniField = tileSearchFields.value.find((f) => /mini/i.test(f.name) && (f.kind === 'boolean' || f.kind === 'boolean-string'));
    const mini = miniField ? String(body[miniField.name]) === 'true' : false;
    const r = await tileSearch.run(ops.call(TILE_SEARCH_OPERATION, { body }));
    if (r.ok) {
      tileSearchMini.value = mini;
      selectedTiles.value = [];
    }
    return r;
  }

  /** Adds or removes one tile from the selection. */
  function toggleTile(guid: string, on?: boolean): void {
    const set = new Set(selectedTiles.value);
    const want = on ?? !set.has(guid);
    if (want) set.add(guid);
    else set.delete(guid);
    selectedTiles.value = tiles.value.map((t) => t.guid).filter((g) => set.has(g));
  }

  /** Replaces (or extends) the selection, e.g. with the tiles inside a dragged box. */
  function selectTiles(guids: readonly string[], mode: 'replace' | 'add' = 'replace'): void {
    const set = new Set(mode === 'add' ? selectedTiles.value : []);
    for (const g of guids) set.add(g);
    selectedTiles.value = tiles.value.map((t) => t.guid).filter((g) => set.has(g));
  }

  /** Selects every tile of the last search. */
  function selectAllTiles(): void {
    selectedTiles.value = tiles.value.map((t) => t.guid);
  }

  /** Empties the selection. */
  function clearTileSelection(): void {
    selectedTiles.value = [];
  }

  // Each tile's outcome is its own (one refused tile does not stop the others), so the fan-out as a whole answers ok.
  const tileEstimateReq = createRequest<TileOutcome[]>({ cancelsInMain: true });
  const tileQueueReq = createRequest<TileOutcome[]>();
  const tileEstimates = computed(() => tileEstimateReq.data ?? []);
  const tileDownloads = computed(() => tileQueueReq.data ?? []);
  const tileBusy = computed<'estimating' | 'queueing' | null>(() => (tileEstimateReq.loading ? 'estimating' : tileQueueReq.loading ? 'queueing' : null));

  /** Composite estimates (download credit) of each selected tile or mini-tile, one after the other. */
  async function estimateSelectedTiles(): Promise<void> {
    if (tileBusy.value) return;
    const cells = selectedCells.value;
    await tileEstimateReq.run(async (bridge, signal) => {
      const out: TileOutcome[] = [];
      for (const cell of cells) {
        if (signal.aborted) break;
        const request = cell.mini ? { MiniTileGuid: cell.guid } : { TileGuid: cell.guid };
        out.push({ guid: cell.guid, mini: cell.mini, result: await bridge.imageryEstimate({ request }) });
      }
      return { ok: true, data: out };
    });
  }

  /** Stops running tile estimates: the one in flight is cancelled in main, the rest are not asked. */
  function cancelTileEstimates(): void {
    tileEstimateReq.cancel();
  }

  /** Queues a tile or mini-tile download of each selected cell for one date, with the order form's model and constellations. */
  async function downloadSelectedTiles(date: string, form: { model: string; constellations: readonly string[] }): Promise<TileOutcome[]> {
    if (tileBusy.value) return [];
    const cells = selectedCells.value;
    const r = await tileQueueReq.run(async (bridge) => {
      const out: TileOutcome[] = [];
      for (const cell of cells) {
        const request: Record<string, unknown> = {
          [cell.mini ? 'MiniTileGuid' : 'TileGuid']: cell.guid,
          Date: date,
          Model: form.model,
          SatelliteConstellations: [...form.constellations],
        };
        out.push({ guid: cell.guid, mini: cell.mini, result: await bridge.downloadsEnqueue({ kind: cell.mini ? 'minitile' : 'tile', request }) });
      }
      return { ok: true, data: out };
    });
    return r.ok ? r.data : [];
  }

  watch(() => session.generation, () => {
    tileSearch.reset();
    selectedTiles.value = [];
  });

  return {
    tileSearchOp, tileSearchFields, tileSearchValues, tileSearch, tileSearchMini, tiles, selectedTiles, selectedCells,
    searchTiles, toggleTile, selectTiles, selectAllTiles, clearTileSelection,
    tileEstimates, tileDownloads, tileBusy, estimateSelectedTiles, cancelTileEstimates, downloadSelectedTiles,
  };
});
