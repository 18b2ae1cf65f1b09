import { defineStore, storeToRefs } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import type { ResponseOf, Result } from '../../../../../preload/contract';
import { polygonalOf } from '../../../platform/lib/billed-area';
import { bbox, toWkt, type PolygonalGeometry } from '../../../platform/lib/geometry';
import { extractDatedGeographies, findGuid, isGeoJsonGeometry, isWkt, type JsonObject } from '../../../platform/lib/recognise';
import { createRequest, type RequestState } from '../../../platform/request';
import { dedupReport, type DedupCandidate, type DedupReport } from '../model/tasking-dedup';
import { areaOf, canonicalJson, changedFields, deepFreeze, frequencyRangeFromReasons, type FieldErrors, type OrderAreaKind } from '../model/tasking-order';
import { canPlace as placementAllows, initialPlacement, placeBlockedReason as placementBlock, transition, type PlacementEvent, type PlacementState } from '../model/order-placement';
import { keyByName, orderMatchesRequest, type OrderSummary } from '../model/tasking-records';
import { useAoiStore } from '../../../platform/stores/aoi';
import { useSessionStore } from '../../../platform/stores/session';
import { useTaskingOrdersStore } from './tasking-orders';
import { useOrderDraftStore } from './order-draft';
import { useTileSearchStore, type TileOutcome } from './tile-search';
import { useUiStore } from '../../../platform/stores/ui';

/** Main's verdict on a spend against the budget. */
type SpendVerdict = ResponseOf<'spend:get'>;

export { TILE_SEARCH_OPERATION, type TileOutcome } from './tile-search';

/**
 * What an estimate froze: the request the form sent, the exact JSON text main
 * sent to the service (and will send to create, byte for byte), and the answer.
 * Deep-frozen: nothing can edit it after the fact.
 */
export interface FrozenEstimate {
  readonly id: number;
  readonly request: Readonly<Record<string, unknown>>;
  /** Canonical JSON of the estimated payload; the form must still produce it for "Place order" to be enabled. */
  readonly fingerprint: string;
  readonly payload: string;
  readonly estimate: unknown;
  /** Main's verdict on placing it against the budget (main decides again when it is placed). */
  readonly verdict: SpendVerdict;
  readonly at: number;
  /** UTC day of the estimate: dates and prices depend on it. */
  readonly day: string;
  readonly recurring: boolean;
  readonly areaKind: OrderAreaKind;
  /** Tile mode: mini-tiles or tiles, and the GUIDs. */
  readonly mini: boolean | null;
  readonly guids: readonly string[];
  readonly bbox: readonly [number, number, number, number] | null;
}

export type { CreatePhase } from '../model/order-placement';

/** The order that was created. */
export interface CreatedOrder {
  data: unknown;
  request: Readonly<Record<string, unknown>>;
  payload: string;
  orderId: string | null;
  recurring: boolean;
  /** true when the answer was lost and the order was found in the list instead. */
  foundInList: boolean;
  at: number;
}

/** What "search dates in this order" hands to the imagery panel. */
export interface ImageryHandoff {
  label: string;
  geometry: PolygonalGeometry;
  from: string;
  until: string;
  model: string | null;
  constellations: string[] | null;
}


// Error kinds after which a create may or may not have reached the service.
const UNKNOWN_OUTCOME = new Set(['transient', 'io', 'cancelled']);



function unionBbox(boxes: (readonly number[] | null)[]): [number, number, number, number] | null {
  const real = boxes.filter((b): b is readonly number[] => !!b);
  if (!real.length) return null;
  return [
    Math.min(...real.map((b) => b[0]!)), Math.min(...real.map((b) => b[1]!)),
    Math.max(...real.map((b) => b[2]!)), Math.max(...real.map((b) => b[3]!)),
  ];
}

/** Bounding box of a WKT or GeoJSON polygonal geometry, or null. */
export function geometryBbox(geometry: unknown): [number, number, number, number] | null {
  const p = polygonalOf(geometry);
  return p ? bbox(p) : null;
}

/**
 * Tasking: estimate and create, over the order draft (`order-draft.ts`: models and
 * constellations, the form, the area) and tile search (`tile-search.ts`: tile search and
 * selection), which the views use directly. Placing follows the
 * pure state machine of `model/order-placement.ts`.
 *
 * The money path: `estimate()` freezes the exact payload main sent
 * (`estimated`); any edit of the form, the AOI or the tile selection makes the
 * draft differ from it (`stale`, with `staleReasons`) and disables placing
 * (`canPlace`) until a new estimate. `openConfirm()` shows the cost and whether
 * the order recurs; `confirmPlace()` sends that payload byte for byte (plus
 * TileDeduplication in tile mode) at most once: double clicks are ignored, and
 * after an unknown outcome (transient error) `checkCreated()` re-lists the
 * orders; a retry is offered (`retryAllowed`) only when no matching order is
 * listed.
 */
export const useTaskingStore = defineStore('tasking', () => {
  const session = useSessionStore();
  const aoi = useAoiStore();
  const orders = useTaskingOrdersStore();

  // ---------------------------------------------------------------- the order draft (stores/order-draft.ts)

  const draftStore = useOrderDraftStore();
  const { today, areaKind, tileDeduplication, referenceFollowsFrom, learnedRanges, area, formErrors, draftRequest } = storeToRefs(draftStore);
  const { form } = draftStore;

  // ---------------------------------------------------------------- tile search (stores/tile-search.ts)

  const tileStore = useTileSearchStore();
  const { selectedCells } = storeToRefs(tileStore);
  /** Queues a tile or mini-tile download of each selected cell for one date, with the form's model and constellations. */
  const downloadSelectedTiles = (date: string): Promise<TileOutcome[]> => tileStore.downloadSelectedTiles(date, form);

  // ---------------------------------------------------------------- estimate

  const estimateReq: RequestState<ResponseOf<'tasking:estimate'>> = createRequest<ResponseOf<'tasking:estimate'>>({ cancelsInMain: true });
  const estimated = shallowRef<FrozenEstimate | null>(null);
  let estimateSeq = 0;

  const canEstimate = computed(() => !!draftRequest.value && Object.keys(formErrors.value).length === 0 && !estimateReq.loading);

  /** Why the frozen estimate no longer matches the form (empty when it does). */
  const staleReasons = computed<string[]>(() => {
    const e = estimated.value;
    if (!e) return [];
    const reasons: string[] = [];
    const draft = draftRequest.value;
    if (!draft) reasons.push(`The order area is no longer set: ${area.value.error ?? 'choose one'}.`);
    else {
      const changed = changedFields(e.request as Record<string, unknown>, draft);
      if (changed.length) reasons.push(`Edited since the estimate: ${changed.join(', ')}. Estimate again.`);
    }
    if (e.day !== today.value) reasons.push(`The estimate was made on ${e.day} (UTC); dates and prices depend on the day. Estimate again.`);
    if (placement.value.rejected.includes(e.id)) reasons.push('The service refused this payload. Fix the fields it names and estimate again.');
    return reasons;
  });
  const stale = computed(() => staleReasons.value.length > 0);

  /** Estimates the draft and freezes the exact payload that was sent. */
  async function estimate(): Promise<Result<ResponseOf<'tasking:estimate'>> | null> {
    if (!canEstimate.value || !draftRequest.value) return null;
    const request = deepFreeze(draftRequest.value);
    const sent = canonicalJson(request);
    const snapshot = { areaKind: areaKind.value, mini: area.value.mini, guids: [...area.value.guids] };
    const cellBoxes = selectedCells.value.map((c) => geometryBbox(c.footprint));
    const r = await estimateReq.run((bridge) => bridge.taskingEstimate({ request: request as Record<string, unknown> }));
    if (!r.ok) {
      const range = frequencyRangeFromReasons(reasonsOf(r.error.fields, 'ImageFrequency'));
      if (range && typeof request.Model === 'string') learnedRanges.value = { ...learnedRanges.value, [request.Model]: range };
      return r;
    }
    let fingerprint: string;
    try {
      fingerprint = canonicalJson(JSON.parse(r.data.payload));
    } catch {
      fingerprint = '';
    }
    if (fingerprint !== sent) {
      // Should never happen: main must send what the form built. Refuse rather than place an order nobody saw.
      estimated.value = null;
      estimateReq.error = { kind: 'validation', message: 'The estimated payload is not the request the form built; nothing can be placed from it. Estimate again.' };
      return { ok: false, error: estimateReq.error };
    }
    estimated.value = Object.freeze({
      id: ++estimateSeq,
      request,
      fingerprint,
      payload: r.data.payload,
      estimate: deepFreeze(r.data.estimate),
      verdict: Object.freeze(r.data.verdict),
      at: Date.now(),
      day: today.value,
      recurring: request.To === null,
      areaKind: snapshot.areaKind,
      mini: snapshot.mini,
      guids: Object.freeze(snapshot.guids),
      bbox: unionBbox(cellBoxes),
    });
    // A new estimate starts a new order: what happened to the previous one stays in the orders list.
    dispatch({ type: 'estimated' });
    return r;
  }

  // ---------------------------------------------------------------- create

  /** Order placement: the pure state machine of `model/order-placement.ts`, fed by the steps below. */
  const placement = shallowRef<PlacementState>(initialPlacement());
  const dispatch = (event: PlacementEvent): void => { placement.value = transition(placement.value, event); };
  const phase = computed(() => placement.value.phase);
  const createError = computed(() => placement.value.error);
  const checkNote = computed(() => placement.value.checkNote);
  const retryAllowed = computed(() => placement.value.retryAllowed);
  const created = shallowRef<CreatedOrder | null>(null);
  let attempt: { estimate: FrozenEstimate; baseline: Set<string> | null; at: number } | null = null;
  let sending = false;
  // 429 on create is not retried on its own: the analyst decides.
  const createReq: RequestState<unknown> = createRequest<unknown>({ rateLimitDelaysMs: [] });

  /** Whether "Place order" may be pressed now. */
  const canPlace = computed(() => placementAllows(placement.value, estimated.value?.id ?? null, stale.value));

  /** Why "Place order" is disabled, for the button's note. */
  const placeBlockedReason = computed<string | null>(() => placementBlock(placement.value, estimated.value?.id ?? null, staleReasons.value));

  /** The TileDeduplication value create will carry (tile mode only). */
  const dedupForCreate = computed(() => (estimated.value?.areaKind === 'tiles' ? tileDeduplication.value : undefined));

  /** Opens the confirmation dialog (cost, recurring-ness, dedup warnings); false when placing is not allowed. */
  function openConfirm(): boolean {
    if (!canPlace.value) return false;
    dispatch({ type: 'open', estimateId: estimated.value?.id ?? null, stale: stale.value });
    return true;
  }

  /** Closes the confirmation dialog without sending. */
  function cancelConfirm(): void {
    dispatch({ type: 'cancel' });
  }

  /** Puts the created order's outcome away (the order itself is in the orders list, its status live there). */
  function dismissCreated(): void {
    if (phase.value !== 'created') return;
    created.value = null;
    dispatch({ type: 'reset' });
  }

  /**
   * Sends the frozen payload (plus TileDeduplication in tile mode). At most one
   * create is in flight, and one per estimate unless a check found that the
   * last attempt created nothing.
   */
  async function confirmPlace(): Promise<void> {
    if (sending) return;
    const e = estimated.value;
    if (!e || phase.value !== 'confirming' || !canPlace.value) return;
    sending = true;
    dispatch({ type: 'send' });
    try {
      // A list from just before the create tells a new order from an identical older one.
      const before = await orders.refresh();
      if (estimated.value !== e || stale.value) {
        dispatch({ type: 'abandon' });
        return;
      }
      const baseline = before.ok ? new Set(orders.rows.map((r) => r.summary.id).filter((id): id is string => !!id)) : null;
      attempt = { estimate: e, baseline, at: Date.now() };
      dispatch({ type: 'sent', estimateId: e.id });
      const dedup = e.areaKind === 'tiles' ? tileDeduplication.value : undefined;
      const r = await createReq.run((bridge) =>
        bridge.taskingCreate(dedup === undefined ? { payload: e.payload } : { payload: e.payload, tileDeduplication: dedup }),
      );
      if (r.ok) {
        const data = (r.data as { data: unknown }).data;
        const id = orderIdOf(data);
        finishCreated({ data, request: e.request, payload: e.payload, orderId: id, recurring: e.recurring, foundInList: false, at: Date.now() }, e);
        await orders.refresh();
        if (id) orders.select(orders.rows.find((row) => row.summary.id === id)?.key ?? null);
        return;
      }
      if (UNKNOWN_OUTCOME.has(r.error.kind)) {
        dispatch({ type: 'lost', error: r.error });
        await checkCreated();
        return;
      }
      // Refused: nothing was created (a refusal naming fields needs a new estimate).
      dispatch({ type: 'refused', estimateId: e.id, error: r.error });
    } finally {
      sending = false;
    }
  }

  function finishCreated(order: CreatedOrder, e: FrozenEstimate, note?: string): void {
    created.value = Object.freeze(order);
    // The next order gets its own anchor: its reference date follows its From again (the value stays until From moves).
    referenceFollowsFrom.value = true;
    dispatch(note === undefined ? { type: 'created', estimateId: e.id } : { type: 'created', estimateId: e.id, note });
    useUiStore().notify(`Order ${order.orderId ?? ''} created.`, 'ok');
  }

  /** After an unknown outcome: lists the orders and looks for the one the payload would have created. */
  async function checkCreated(): Promise<void> {
    const a = attempt;
    if (!a) return;
    dispatch({ type: 'check' });
    const r = await orders.refresh();
    if (!r.ok) {
      dispatch({ type: 'check-failed', message: r.error.message });
      return;
    }
    const match = orders.rows.find((row) => (!a.baseline || (row.summary.id !== null && !a.baseline.has(row.summary.id))) &&
      orderMatchesRequest(row.summary, a.estimate.request as Record<string, unknown>));
    if (match) {
      finishCreated({
        data: match.row, request: a.estimate.request, payload: a.estimate.payload, orderId: match.summary.id,
        recurring: a.estimate.recurring, foundInList: true, at: Date.now(),
      }, a.estimate, `The answer was lost, but the orders list shows the new order ${match.summary.id ?? ''}: it was created. Do not place it again.`);
      orders.select(match.key);
      return;
    }
    dispatch({ type: 'not-found', baseline: a.baseline !== null });
  }

  // ---------------------------------------------------------------- dedup consistency

  /** Earlier tile orders that deduplication would not match, with the differing fields (tile mode with TileDeduplication on). */
  const dedup = computed<DedupReport | null>(() => {
    if (areaKind.value !== 'tiles' || !tileDeduplication.value) return null;
    const e = estimated.value && !stale.value ? estimated.value : null;
    const req = (e?.request as Record<string, unknown> | undefined) ?? draftRequest.value;
    const mini = e ? e.mini : area.value.mini;
    const guids = e ? e.guids : area.value.guids;
    if (!req || mini === null || !guids.length) return null;
    const candidate: DedupCandidate = {
      model: String(req.Model ?? ''),
      constellations: (req.SatelliteConstellations as string[]) ?? [],
      mini,
      guids,
      recurring: req.To === null,
      imageFrequency: Number(req.ImageFrequency),
      referenceDate: String(req.ReferenceDate ?? ''),
      bbox: e?.bbox ?? unionBbox(selectedCells.value.map((c) => geometryBbox(c.footprint))),
    };
    return dedupReport(candidate, orders.rows.map((r) => r.summary), (o) => geometryBbox(o.geometry));
  });

  // ---------------------------------------------------------------- search dates in an order

  const datesSearch: RequestState<unknown> = createRequest<unknown>({ cancelsInMain: true });
  const datesSearchFor = ref<ImageryHandoff | null>(null);
  /** Dates with imagery found by the last "search dates in this order". */
  const foundDates = computed<string[]>(() => {
    const all = new Set<string>();
    for (const g of extractDatedGeographies(datesSearch.data)) for (const d of g.dates) all.add(d);
    return [...all].sort();
  });
  /** Set when the analyst asks to continue in the imagery panel; the imagery panel consumes it. */
  const imageryHandoff = ref<ImageryHandoff | null>(null);

  /** Area, period, model and constellations of an order (the created one by default), for an imagery search. */
  function handoffFor(source?: { row?: JsonObject; summary?: OrderSummary }): ImageryHandoff | null {
    let geometry: PolygonalGeometry | null = null;
    let request: Record<string, unknown> | null = null;
    let summary = source?.summary ?? null;
    if (!source && created.value) {
      request = created.value.request as Record<string, unknown>;
      const a = areaOf(request);
      if (a && (a.key === 'Wkt' || a.key === 'GeoJson')) geometry = polygonalOf(a.value);
      summary = orders.rows.find((r) => r.summary.id === created.value!.orderId)?.summary ?? null;
    }
    geometry ??= summary ? polygonalOf(summary.geometry) : null;
    if (!geometry && created.value && !source) geometry = polygonalOf(Object.values((created.value.data as JsonObject) ?? {}).find((v) => isWkt(v) || isGeoJsonGeometry(v)));
    const from = (request?.From as string | undefined) ?? summary?.from ?? null;
    if (!geometry || !from) return null;
    const to = request ? (request.To as string | null) : summary?.to ?? null;
    const until = to && to < today.value ? to : today.value;
    return {
      label: `Order ${summary?.id ?? created.value?.orderId ?? ''}`.trim(),
      geometry,
      from,
      until,
      model: (request?.Model as string | undefined) ?? summary?.model ?? null,
      constellations: (request?.SatelliteConstellations as string[] | undefined) ?? summary?.constellations ?? null,
    };
  }

  /** Runs search/available over an order's area and period (the created order by default). */
  async function searchDatesInOrder(source?: { row?: JsonObject; summary?: OrderSummary }): Promise<Result<unknown> | null> {
    const h = handoffFor(source);
    datesSearchFor.value = h;
    if (!h) {
      datesSearch.error = { kind: 'validation', message: 'This order carries no polygon area and From date to search in.' };
      return null;
    }
    const request: Record<string, unknown> = { [aoi.mode === 'GeoJson' ? 'GeoJson' : 'Wkt']: aoi.mode === 'GeoJson' ? h.geometry : toWkt(h.geometry), From: h.from, Until: h.until };
    if (h.model) request.Model = h.model;
    if (h.constellations?.length) request.SatelliteConstellations = h.constellations;
    return datesSearch.run(async (bridge) => {
      const r = await bridge.imagerySearch({ request });
      return r.ok ? { ok: true, data: r.data.data } : r;
    });
  }

  /** Makes the order's area the AOI and opens the imagery panel with the order's period (see `imageryHandoff`). */
  function openInImagery(source?: { row?: JsonObject; summary?: OrderSummary }): boolean {
    const h = (source ? handoffFor(source) : datesSearchFor.value ?? handoffFor()) ?? null;
    if (!h) return false;
    aoi.setGeometry(h.geometry, 'api', h.label);
    imageryHandoff.value = h;
    useUiStore().goTo('imagery');
    return true;
  }

  /** Called by the imagery panel once it has taken the handoff. */
  function takeImageryHandoff(): ImageryHandoff | null {
    const h = imageryHandoff.value;
    imageryHandoff.value = null;
    return h;
  }

  // ---------------------------------------------------------------- service errors next to fields

  /** Field reasons to show next to the form: the client's checks, then the service's answer to estimate or create. */
  const fieldErrors = computed<FieldErrors>(() => {
    const out: FieldErrors = {};
    const add = (fields: Record<string, string[]> | undefined) => {
      for (const [k, reasons] of Object.entries(fields ?? {})) (out[k] ??= []).push(...reasons);
    };
    add(estimateReq.error?.fields);
    if (phase.value === 'failed' || phase.value === 'unknown') add(createError.value?.fields);
    return out;
  });

  watch(() => session.generation, () => {
    estimated.value = null;
    estimateReq.reset();
    created.value = null;
    dispatch({ type: 'reset' });
    datesSearch.reset();
  });

  return {
    downloadSelectedTiles,
    estimateReq, estimated, canEstimate, staleReasons, stale, estimate,
    phase, createError, created, checkNote, retryAllowed, canPlace, placeBlockedReason, dedupForCreate,
    openConfirm, cancelConfirm, dismissCreated, confirmPlace, checkCreated,
    dedup,
    datesSearch, datesSearchFor, foundDates, imageryHandoff, searchDatesInOrder, openInImagery, takeImageryHandoff,
    fieldErrors,
  };
});

function reasonsOf(fields: Record<string, string[]> | undefined, name: string): string[] {
  if (!fields) return [];
  const k = keyByName(fields, name);
  return k ? fields[k]! : [];
}

function orderIdOf(data: unknown): string | null {
  return findGuid(data)?.value ?? null;
}
