import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SwathApi } from '../../../../preload/contract';
import { T1, T2, fail, makeBridge } from './fake-bridge';
import { bridgeStandIn } from '../../fake-bridge';
import { useTaskingStore } from '../../../../renderer/src/features/tasking/stores/tasking';
import { useTaskingOrdersStore } from '../../../../renderer/src/features/tasking/stores/tasking-orders';
import { useOrderDraftStore } from '../../../../renderer/src/features/tasking/stores/order-draft';
import { useTileSearchStore } from '../../../../renderer/src/features/tasking/stores/tile-search';
import { useAoiStore } from '../../../../renderer/src/platform/stores/aoi';

const fake = bridgeStandIn();

const BERLIN = { type: 'Polygon' as const, coordinates: [[[13.3, 52.45], [13.5, 52.45], [13.5, 52.56], [13.3, 52.56], [13.3, 52.45]]] };

let bridge: ReturnType<typeof makeBridge>;

async function ready() {
  const store = useTaskingStore();
  useAoiStore().setGeometry(BERLIN, 'polygon');
  await useOrderDraftStore().loadModels();
  Object.assign(useOrderDraftStore().form, { from: '2025-01-01', to: '2025-01-31', referenceDate: '2025-01-01', imageFrequency: 7, kind: 'historical' });
  return store;
}

async function place(store: ReturnType<typeof useTaskingStore>) {
  expect(store.openConfirm()).toBe(true);
  await store.confirmPlace();
}

beforeEach(() => {
  setActivePinia(createPinia());
  bridge = makeBridge();
  fake.api = bridge.api as unknown as SwathApi;
});

describe('models in the form', () => {
  it('picks the first model with its required constellations locked on', async () => {
    await ready();
    expect(useOrderDraftStore().form.model).toBe('Stratus2');
    expect(useOrderDraftStore().form.constellations).toEqual(['Sentinel1', 'Sentinel2']);
    useOrderDraftStore().toggleConstellation('Sentinel1', false);
    expect(useOrderDraftStore().form.constellations).toEqual(['Sentinel1', 'Sentinel2']);
    useOrderDraftStore().toggleConstellation('Landsat89', true);
    expect(useOrderDraftStore().form.constellations).toEqual(['Sentinel1', 'Sentinel2', 'Landsat89']);
    useOrderDraftStore().setModel('Nimbus');
    expect(useOrderDraftStore().form.constellations).toEqual(['Sentinel2L1']);
  });

  it('a pasted display name blocks the estimate and offers the enum value', async () => {
    const store = await ready();
    useOrderDraftStore().form.model = 'Stratus-2';
    expect(useOrderDraftStore().modelCheck).toMatchObject({ ok: false, suggestion: 'Stratus2' });
    expect(store.canEstimate).toBe(false);
    useOrderDraftStore().useSuggestedModel();
    expect(useOrderDraftStore().form.model).toBe('Stratus2');
    expect(store.canEstimate).toBe(true);
  });
});

describe('estimate freezes the payload', () => {
  it('keeps the exact text main sent, deep-frozen, and places from it byte for byte', async () => {
    const store = await ready();
    await store.estimate();
    const e = store.estimated!;
    expect(e.payload).toBe(JSON.stringify(e.request, null, 1));
    expect(Object.isFrozen(e.request)).toBe(true);
    expect(Object.isFrozen(e.estimate)).toBe(true);
    expect(() => { (e.request as Record<string, unknown>).ImageFrequency = 1; }).toThrow(TypeError);
    expect(e.request).toMatchObject({ Wkt: expect.stringMatching(/^POLYGON/), Model: 'Stratus2', To: '2025-01-31' });
    expect(e.request).not.toHaveProperty('GeoJson');
    await place(store);
    expect(bridge.api.taskingCreate).toHaveBeenCalledOnce();
    // Polygon mode: the payload alone, no TileDeduplication.
    expect(bridge.api.taskingCreate.mock.calls[0]![0]).toEqual({ payload: e.payload });
  });

  it('refuses an estimate whose payload is not the request the form built', async () => {
    const store = await ready();
    bridge.hooks.estimate = (request) => ({ ok: true, data: { estimate: {}, payload: JSON.stringify({ ...request, ImageFrequency: 1 }) } });
    await store.estimate();
    expect(store.estimated).toBeNull();
    expect(store.estimateReq.error?.message).toMatch(/not the request the form built/);
    expect(store.canPlace).toBe(false);
  });
});

describe('stale estimates', () => {
  it('any edit disables placing until a new estimate, and names what changed', async () => {
    const store = await ready();
    await store.estimate();
    expect(store.canPlace).toBe(true);
    useOrderDraftStore().form.imageFrequency = 5;
    expect(store.stale).toBe(true);
    expect(store.staleReasons[0]).toMatch(/ImageFrequency/);
    expect(store.canPlace).toBe(false);
    expect(store.openConfirm()).toBe(false);
    await store.confirmPlace();
    expect(bridge.api.taskingCreate).not.toHaveBeenCalled();
    useOrderDraftStore().form.imageFrequency = 7;
    expect(store.stale).toBe(false);
    useOrderDraftStore().setKind('recurring');
    expect(store.staleReasons[0]).toMatch(/To/);
    await store.estimate();
    expect(store.canPlace).toBe(true);
    expect(store.estimated!.recurring).toBe(true);
  });

  it('an AOI edit or an encoding switch makes the estimate stale', async () => {
    const store = await ready();
    const aoi = useAoiStore();
    await store.estimate();
    aoi.setMode('GeoJson');
    expect(store.staleReasons[0]).toMatch(/GeoJson, Wkt/);
    aoi.setMode('Wkt');
    expect(store.stale).toBe(false);
    aoi.setGeometry({ ...BERLIN, coordinates: [[[13.3, 52.45], [13.6, 52.45], [13.6, 52.56], [13.3, 52.56], [13.3, 52.45]]] }, 'edit');
    expect(store.staleReasons[0]).toMatch(/Wkt/);
    aoi.clear();
    expect(store.staleReasons[0]).toMatch(/area is no longer set/);
  });

  it('an estimate from another UTC day is stale', async () => {
    const store = await ready();
    await store.estimate();
    useOrderDraftStore().now = Date.parse(`${store.estimated!.day}T00:00:00Z`) + 86_400_000;
    expect(store.staleReasons[0]).toMatch(/made on .* \(UTC\)/);
    expect(store.canPlace).toBe(false);
  });
});

describe('create', () => {
  it('double clicks create one order, and the same estimate cannot be placed twice', async () => {
    const store = await ready();
    await store.estimate();
    store.openConfirm();
    await Promise.all([store.confirmPlace(), store.confirmPlace(), store.confirmPlace()]);
    expect(bridge.api.taskingCreate).toHaveBeenCalledTimes(1);
    expect(store.phase).toBe('created');
    expect(store.created?.orderId).toBe(bridge.orders[0]!.TaskOrderGuid);
    expect(store.canPlace).toBe(false);
    expect(store.placeBlockedReason).toMatch(/Estimate again/);
    expect(store.openConfirm()).toBe(false);
    await store.confirmPlace();
    expect(bridge.api.taskingCreate).toHaveBeenCalledTimes(1);
    // The new order is listed and selected.
    expect(useTaskingOrdersStore().selected?.summary.id).toBe(store.created!.orderId);
  });

  it('cannot send without the confirmation dialog', async () => {
    const store = await ready();
    await store.estimate();
    // The estimate succeeded: the store is ready to place, only the dialog is missing.
    expect(bridge.api.taskingEstimate).toHaveBeenCalledOnce();
    expect(store.estimated).not.toBeNull();
    expect(store.canPlace).toBe(true);
    expect(store.phase).not.toBe('confirming');
    await store.confirmPlace();
    expect(bridge.api.taskingCreate).not.toHaveBeenCalled();
    // The same estimate, through the dialog, is sent.
    await place(store);
    expect(bridge.api.taskingCreate).toHaveBeenCalledOnce();
  });

  it('a 400 (estimate/create mismatch) shows the fields and requires a new estimate', async () => {
    const store = await ready();
    await store.estimate();
    bridge.hooks.create = () => fail({ kind: 'validation', message: 'Validation errors occurred.', fields: { ImageFrequency: ['Differs from the last estimated order (estimated 5, sent 7). Estimate again before creating.'] } });
    await place(store);
    expect(store.phase).toBe('failed');
    expect(store.fieldErrors.ImageFrequency?.[0]).toMatch(/Differs from the last estimated order/);
    expect(store.canPlace).toBe(false);
    expect(store.staleReasons.join()).toMatch(/refused this payload/);
    bridge.hooks.create = null;
    await store.estimate();
    expect(store.canPlace).toBe(true);
    expect(store.fieldErrors).toEqual({});
  });

  it('after a transient failure it re-lists orders and finds the order that was created', async () => {
    const store = await ready();
    await store.estimate();
    bridge.hooks.create = (payload) => {
      bridge.orders.push({ TaskOrderGuid: 'bbbbbbbb-bbbb-4bbb-8bbb-000000000001', ...JSON.parse(payload), OrderingProcessStatus: 'Review' });
      return fail({ kind: 'transient', message: 'The connection was reset.' });
    };
    await place(store);
    expect(store.phase).toBe('created');
    expect(store.created).toMatchObject({ foundInList: true, orderId: 'bbbbbbbb-bbbb-4bbb-8bbb-000000000001' });
    expect(store.checkNote).toMatch(/it was created/);
    expect(store.retryAllowed).toBe(false);
    expect(store.canPlace).toBe(false);
    expect(bridge.api.taskingCreate).toHaveBeenCalledOnce();
  });

  it('after a transient failure with nothing listed, a retry is offered and needs a new confirmation', async () => {
    const store = await ready();
    // An identical older order must not be mistaken for the new one.
    bridge.orders.push({ TaskOrderGuid: 'cccccccc-cccc-4ccc-8ccc-000000000001', Model: 'Stratus2', From: '2025-01-01', To: '2025-01-31', ImageFrequency: 7, ReferenceDate: '2025-01-01' });
    await store.estimate();
    bridge.hooks.create = () => fail({ kind: 'transient', message: 'Timed out.' });
    await place(store);
    expect(store.phase).toBe('unknown');
    expect(store.retryAllowed).toBe(true);
    expect(store.checkNote).toMatch(/not created/);
    expect(bridge.api.serviceCall.mock.calls.filter(([c]) => c.key === 'tasking.orders.list').length).toBeGreaterThanOrEqual(2);
    bridge.hooks.create = null;
    await store.confirmPlace();
    expect(bridge.api.taskingCreate).toHaveBeenCalledTimes(1);
    await place(store);
    expect(bridge.api.taskingCreate).toHaveBeenCalledTimes(2);
    expect(bridge.api.taskingCreate.mock.calls[1]![0]).toEqual(bridge.api.taskingCreate.mock.calls[0]![0]);
    expect(store.phase).toBe('created');
  });

  it('when the check itself fails, no retry is offered', async () => {
    const store = await ready();
    await store.estimate();
    bridge.hooks.create = () => {
      bridge.hooks.list = () => fail({ kind: 'transient', message: 'offline' });
      return fail({ kind: 'transient', message: 'Timed out.' });
    };
    await place(store);
    expect(store.phase).toBe('unknown');
    expect(store.retryAllowed).toBe(false);
    expect(store.canPlace).toBe(false);
    expect(store.checkNote).toMatch(/could not be read/);
    bridge.hooks.list = null;
    await store.checkCreated();
    expect(store.retryAllowed).toBe(true);
  });

  it('a 429 on create is not retried on its own', async () => {
    const store = await ready();
    await store.estimate();
    bridge.hooks.create = () => fail({ kind: 'rate-limited', message: 'Too many requests.' });
    await place(store);
    expect(bridge.api.taskingCreate).toHaveBeenCalledOnce();
    expect(store.phase).toBe('failed');
    // Refused, so nothing was created: placing again is the analyst's call.
    expect(store.canPlace).toBe(true);
  });
});

describe('tile mode', () => {
  async function tileStore() {
    const store = await ready();
    await useTileSearchStore().searchTiles();
    useOrderDraftStore().areaKind = 'tiles';
    useOrderDraftStore().setKind('recurring');
    return store;
  }

  it('searches over the AOI with the spec body and selects by click, box and all', async () => {
    await tileStore();
    const body = bridge.api.serviceCall.mock.calls.find(([c]) => c.key === 'tasking.searchTiles')![0].body as Record<string, unknown>;
    expect(body).toMatchObject({ Wkt: expect.stringMatching(/^POLYGON/), MiniTiles: false, MaxResults: 1000 });
    expect(useTileSearchStore().tiles.map((t) => t.guid)).toEqual([T1, T2]);
    useTileSearchStore().toggleTile(T2);
    expect(useTileSearchStore().selectedTiles).toEqual([T2]);
    useTileSearchStore().selectTiles([T1], 'add');
    expect(useTileSearchStore().selectedTiles).toEqual([T1, T2]);
    useTileSearchStore().clearTileSelection();
    useTileSearchStore().selectAllTiles();
    expect(useTileSearchStore().selectedTiles).toEqual([T1, T2]);
  });

  it('sends the GUIDs and TileDeduplication; a selection change makes the estimate stale', async () => {
    const store = await tileStore();
    useTileSearchStore().selectAllTiles();
    await store.estimate();
    expect(store.estimated!.request).toMatchObject({ TileGuids: [T1, T2], To: null });
    useTileSearchStore().toggleTile(T1, false);
    expect(store.staleReasons[0]).toMatch(/TileGuid/);
    useTileSearchStore().toggleTile(T1, true);
    expect(store.stale).toBe(false);
    // Dedup is create-only: switching it does not touch the estimate.
    useOrderDraftStore().tileDeduplication = false;
    useOrderDraftStore().tileDeduplication = true;
    expect(store.stale).toBe(false);
    await place(store);
    expect(bridge.api.taskingCreate.mock.calls[0]![0]).toEqual({ payload: store.estimated!.payload, tileDeduplication: true });
  });

  it('warns when an earlier tile order over the same tiles has other settings', async () => {
    const store = await tileStore();
    bridge.orders.push({ TaskOrderGuid: 'dddddddd-dddd-4ddd-8ddd-000000000001', OrderingProcessStatus: 'UpToDate', Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], From: '2025-01-01', To: null, ImageFrequency: 5, ReferenceDate: '2025-01-01', Tiles: [T1], MiniTiles: [] });
    await useTaskingOrdersStore().refresh();
    useTileSearchStore().selectAllTiles();
    expect(store.dedup?.warnings[0]?.differences.map((d) => d.field)).toEqual(['ImageFrequency']);
    useOrderDraftStore().adoptSettingsOf(useTaskingOrdersStore().rows[0]!.summary);
    expect(useOrderDraftStore().form.imageFrequency).toBe(5);
    expect(store.dedup).toMatchObject({ related: 1, consistent: 1, warnings: [] });
    useOrderDraftStore().tileDeduplication = false;
    expect(store.dedup).toBeNull();
  });

  it('feeds tile estimates and downloads with the selected GUIDs', async () => {
    const store = await tileStore();
    useTileSearchStore().toggleTile(T1);
    await useTileSearchStore().estimateSelectedTiles();
    expect(bridge.api.imageryEstimate).toHaveBeenCalledWith({ request: { TileGuid: T1 } }, { callId: expect.any(Number) });
    await store.downloadSelectedTiles('2025-01-08');
    expect(bridge.api.downloadsEnqueue).toHaveBeenCalledWith({ kind: 'tile', request: { TileGuid: T1, Date: '2025-01-08', Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'] } });
  });

  it('cancelling stops the fan-out: the estimate in flight is dropped and the next tiles are not asked', async () => {
    await tileStore();
    useTileSearchStore().toggleTile(T1);
    useTileSearchStore().toggleTile(T2);
    const answers: ((r: any) => void)[] = [];
    bridge.api.imageryEstimate.mockImplementation(() => new Promise((r) => answers.push(r)));
    const running = useTileSearchStore().estimateSelectedTiles();
    await vi.waitFor(() => expect(answers).toHaveLength(1));
    expect(useTileSearchStore().tileBusy).toBe('estimating');
    useTileSearchStore().cancelTileEstimates();
    answers[0]!({ ok: false, error: { kind: 'cancelled', message: 'The operation was cancelled.' } });
    await running;
    expect(bridge.api.imageryEstimate).toHaveBeenCalledOnce();
    expect(useTileSearchStore().tileEstimates).toEqual([]);
    expect(useTileSearchStore().tileBusy).toBeNull();
  });
});

describe('after an order', () => {
  it('searches dates in the created order\'s area and period', async () => {
    const store = await ready();
    await store.estimate();
    await place(store);
    await store.searchDatesInOrder();
    const req = bridge.api.imagerySearch.mock.calls[0]![0].request;
    expect(req).toMatchObject({ Wkt: expect.stringMatching(/^POLYGON/), From: '2025-01-01', Until: '2025-01-31', Model: 'Stratus2' });
    expect(store.foundDates).toEqual(['2025-01-01', '2025-01-08']);
    expect(store.openInImagery()).toBe(true);
    expect(store.takeImageryHandoff()).toMatchObject({ from: '2025-01-01', until: '2025-01-31' });
  });
});

describe('the reference date belongs to one order', () => {
  it('follows From until set, and a set date does not carry over to the next order (issue 27 #6)', async () => {
    const store = await ready();
    // A fresh form: the reference date moves with From.
    useOrderDraftStore().form.from = '2026-09-26';
    expect(useOrderDraftStore().form.referenceDate).toBe('2026-09-26');
    // The analyst anchors this order elsewhere; From edits keep that anchor for this order.
    useOrderDraftStore().form.referenceDate = '2026-09-01';
    useOrderDraftStore().form.from = '2026-09-20';
    useOrderDraftStore().form.to = '2026-10-20';
    expect(useOrderDraftStore().form.referenceDate).toBe('2026-09-01');
    expect(await store.estimate()).toMatchObject({ ok: true });
    await place(store);
    expect(store.phase).toBe('created');
    expect(JSON.parse(bridge.api.taskingCreate.mock.calls[0]![0].payload)).toMatchObject({ ReferenceDate: '2026-09-01', From: '2026-09-20' });
    // The next order: a recurring one from 2026-11-20 is anchored at its own From, not the last order's date.
    useOrderDraftStore().setKind('recurring');
    useOrderDraftStore().form.from = '2026-11-20';
    expect(useOrderDraftStore().form.referenceDate).toBe('2026-11-20');
    expect(await store.estimate()).toMatchObject({ ok: true });
    expect(store.estimated!.request).toMatchObject({ ReferenceDate: '2026-11-20', From: '2026-11-20', To: null });
  });

  it('"= From" makes it follow From again; adopting an earlier order\'s settings sets it', async () => {
    await ready();
    useOrderDraftStore().form.referenceDate = '2024-12-25';
    expect(useOrderDraftStore().referenceFollowsFrom).toBe(false);
    useOrderDraftStore().followFrom();
    expect(useOrderDraftStore().form.referenceDate).toBe('2025-01-01');
    useOrderDraftStore().form.from = '2025-01-05';
    expect(useOrderDraftStore().form.referenceDate).toBe('2025-01-05');
    useOrderDraftStore().adoptSettingsOf({
      id: null, idKey: null, status: null, from: '2024-12-01', to: null, recurring: true, model: 'Stratus2', constellations: null,
      imageFrequency: 7, referenceDate: '2024-12-01', areaKm2: null, geometry: null, tiles: [], miniTiles: [], ended: false,
      renewalStopped: false, createdAt: null,
    });
    useOrderDraftStore().form.from = '2025-01-09';
    expect(useOrderDraftStore().form.referenceDate).toBe('2024-12-01');
  });
});

describe('orders list, details and cancel', () => {
  it('lists with the spec\'s parameters, prefills details and cancel from the row, confirms and refreshes', async () => {
    const orders = useTaskingOrdersStore();
    bridge.orders.push({ TaskOrderGuid: 'eeeeeeee-eeee-4eee-8eee-000000000001', OrderingProcessStatus: 'Review', From: '2025-01-01', To: null, Model: 'Stratus2' });
    await orders.refresh();
    expect(bridge.api.serviceCall).toHaveBeenCalledWith({ key: 'tasking.orders.list', params: { recurringOnly: 'false', getExpired: 'false' } });
    orders.listParams.recurringOnly = 'true';
    await orders.refresh();
    expect(bridge.api.serviceCall).toHaveBeenLastCalledWith({ key: 'tasking.orders.list', params: { recurringOnly: 'true', getExpired: 'false' } });
    orders.select(orders.rows[0]!.key);
    expect(orders.detailsParams).toEqual({ taskOrderGuid: 'eeeeeeee-eeee-4eee-8eee-000000000001' });
    expect(orders.cancelParams).toEqual({ taskOrderGuid: 'eeeeeeee-eeee-4eee-8eee-000000000001' });
    await orders.loadDetails();
    expect(orders.details.data).toMatchObject({ TaskOrderGuid: 'eeeeeeee-eeee-4eee-8eee-000000000001' });
    orders.requestCancel();
    await Promise.all([orders.confirmCancel(), orders.confirmCancel()]);
    expect(bridge.api.serviceCall.mock.calls.filter(([c]) => c.key === 'tasking.orders.cancel')).toHaveLength(1);
    expect(orders.rows[0]!.summary.status).toBe('Canceled');
    expect(orders.statusChanges[orders.rows[0]!.key]).toMatchObject({ from: 'Review', to: 'Canceled' });
  });

  it('a refused cancel keeps the dialog\'s error and still refreshes', async () => {
    const orders = useTaskingOrdersStore();
    bridge.orders.push({ TaskOrderGuid: 'eeeeeeee-eeee-4eee-8eee-000000000002', OrderingProcessStatus: 'Completed', From: '2025-01-01', To: '2025-01-31' });
    await orders.refresh();
    orders.select(orders.rows[0]!.key);
    bridge.hooks.cancel = () => fail({ kind: 'validation', message: 'A historical order can only be cancelled in Review.', fields: { taskOrderGuid: ['A historical order can only be cancelled in Review; it is Completed.'] } });
    orders.requestCancel();
    const callsBefore = bridge.api.serviceCall.mock.calls.length;
    await orders.confirmCancel();
    expect(orders.cancelReq.fields.taskOrderGuid?.[0]).toMatch(/only be cancelled in Review/);
    expect(orders.pendingCancel).not.toBeNull();
    expect(bridge.api.serviceCall.mock.calls.slice(callsBefore).map(([c]) => c.key)).toEqual(['tasking.orders.cancel', 'tasking.orders.list']);
  });

  it('shows renewal deadlines of active recurring orders and warns under 72 hours', async () => {
    const orders = useTaskingOrdersStore();
    bridge.orders.push(
      { TaskOrderGuid: 'eeeeeeee-eeee-4eee-8eee-000000000003', OrderingProcessStatus: 'UpToDate', From: '2025-01-01', To: null },
      { TaskOrderGuid: 'eeeeeeee-eeee-4eee-8eee-000000000004', OrderingProcessStatus: 'UpToDate', From: '2025-01-01', To: null, RenewalStopped: true },
      { TaskOrderGuid: 'eeeeeeee-eeee-4eee-8eee-000000000005', OrderingProcessStatus: 'Completed', From: '2025-01-01', To: '2025-02-01' },
    );
    await orders.refresh();
    orders.now = Date.parse('2025-06-10T00:00:00Z');
    expect(orders.renewals.map((r) => r.orderId)).toEqual(['eeeeeeee-eeee-4eee-8eee-000000000003']);
    expect(orders.renewals[0]!.utc).toBe('2025-07-01 00:00 UTC');
    expect(orders.urgentRenewals).toEqual([]);
    orders.now = Date.parse('2025-06-29T12:00:00Z');
    expect(orders.urgentRenewals[0]!.countdown).toBe('1 d 12 h 00 min');
  });
});
