// @vitest-environment jsdom
import OlMap from 'ol/Map';
import View from 'ol/View';
import type VectorLayer from 'ol/layer/Vector';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mergeOrderRows, type OrderRow } from '../../../../renderer/src/features/tasking/model/order-rows';
import { LAYERS, ORDER_LABEL_MIN_ZOOM, drawOrders, focusLabelTexts, highlightOrder, orderLabelOf, orderLabelText } from '../../../../renderer/src/features/tasking/views/tasking-map';
import { provideMap } from '../../../../renderer/src/platform/map/map-context';
import { featureIds, featureOf, highlight, resetVectorLayers, select, stateOf, updateFeatures } from '../../../../renderer/src/platform/map/vector-layers';

// OpenLayers watches its target's size; jsdom has no ResizeObserver.
globalThis.ResizeObserver ??= class { observe(): void {} unobserve(): void {} disconnect(): void {} } as unknown as typeof ResizeObserver;

const guid = (n: number) => `aaaaaaaa-aaaa-4aaa-8aaa-${String(n).padStart(12, '0')}`;
const wkt = (n: number) => `POLYGON((${n} 52, ${n + 0.1} 52, ${n + 0.1} 52.1, ${n} 52.1, ${n} 52))`;
/** A list record as the service sends it: a fresh object on every poll. */
const record = (n: number, status = 'Review', area = wkt(n)) => ({
  TaskOrderGuid: guid(n), OrderingProcessStatus: status, Model: 'Stratus2', From: '2026-01-01', To: '2026-02-01', Wkt: area, ImageFrequency: 7,
});
const poll = (...recs: ReturnType<typeof record>[]) => recs.map((r) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>);

afterEach(() => {
  resetVectorLayers();
  provideMap(null);
});

describe('the orders poll merges rows by key', () => {
  it('identical orders keep their row objects; a list with nothing changed is the same array', async () => {
    const first = await mergeOrderRows([], poll(record(1), record(2), record(3)));
    expect(first.map((r) => r.key)).toEqual([guid(1), guid(2), guid(3)]);
    const second = await mergeOrderRows(first, poll(record(1), record(2), record(3)));
    expect(second).toBe(first);
  });

  it('a changed order replaces only its row; removed ones leave; new ones come in their place', async () => {
    const first = await mergeOrderRows([], poll(record(1), record(2), record(3)));
    const next = await mergeOrderRows(first, poll(record(1), record(2, 'Processing'), record(4)));
    expect(next).not.toBe(first);
    expect(next.map((r) => r.key)).toEqual([guid(1), guid(2), guid(4)]);
    expect(next[0]).toBe(first[0]);
    expect(next[1]).not.toBe(first[1]);
    expect(next[1]!.summary.status).toBe('Processing');
    expect(next.some((r) => r.key === guid(3))).toBe(false);
    // A reordered list keeps the rows and follows the new order.
    const reordered = await mergeOrderRows(next, poll(record(4), record(1), record(2, 'Processing')));
    expect(reordered).toEqual([next[2], next[0], next[1]]);
    expect(reordered[0]).toBe(next[2]);
  });

  it('compares records by value, nested arrays and objects included, whatever the order of their keys', async () => {
    const rec = (tiles: string[], extra: Record<string, unknown> = {}) => ({ ...record(1), TileGuids: tiles, Meta: { a: 1, b: [1, 2] }, ...extra });
    const first = await mergeOrderRows([], [rec([guid(7)])]);
    expect(await mergeOrderRows(first, [JSON.parse(JSON.stringify(rec([guid(7)])))])).toBe(first);
    const { TaskOrderGuid, ...rest } = rec([guid(7)]);
    expect(await mergeOrderRows(first, [{ ...rest, TaskOrderGuid }])).toBe(first);
    const moreTiles = await mergeOrderRows(first, [rec([guid(7), guid(8)])]);
    expect(moreTiles[0]).not.toBe(first[0]);
    expect(moreTiles[0]!.summary.tiles).toEqual([guid(7), guid(8)]);
    expect((await mergeOrderRows(first, [rec([guid(7)], { Meta: { a: 1, b: [1, 3] } })]))[0]).not.toBe(first[0]);
    expect((await mergeOrderRows(first, [rec([guid(7)], { Meta: { a: 1, b: [1, 2], c: null } })]))[0]).not.toBe(first[0]);
  });

  it('merges in slices to the same rows as in one go, handing the thread back between slices', async () => {
    const first = await mergeOrderRows([], poll(record(1), record(2), record(3)));
    const records = poll(record(1), record(2, 'Processing'), record(4));
    // A task queued now runs before a merge that yields (a budget of 0: after each record) is done.
    let yielded = false;
    setTimeout(() => (yielded = true), 0);
    const sliced = await mergeOrderRows(first, records, 0);
    expect(yielded).toBe(true);
    expect(sliced.map((r) => r.key)).toEqual((await mergeOrderRows(first, records)).map((r) => r.key));
    expect(sliced[0]).toBe(first[0]);
    expect(sliced[1]!.summary.status).toBe('Processing');
    expect(await mergeOrderRows(first, poll(record(1), record(2), record(3)), 0)).toBe(first);
  });

  it('a row without a GUID is reused only at its own position', async () => {
    const noId = { Model: 'Stratus2', OrderingProcessStatus: 'Review' };
    const first = await mergeOrderRows([], [noId, { ...noId, Model: 'Nimbus' }]);
    expect(first.map((r) => r.key)).toEqual(['#0', '#1']);
    const swapped = await mergeOrderRows(first, [{ ...noId, Model: 'Nimbus' }, noId]);
    expect(swapped.map((r) => r.key)).toEqual(['#0', '#1']);
    expect(swapped[0]!.summary.model).toBe('Nimbus');
  });
});

describe("the order footprints follow the poll by id", () => {
  it("an unchanged order's footprint and label stay the same objects; a changed one is redrawn; a removed one leaves", async () => {
    const map = new OlMap({ view: new View() });
    provideMap(map);
    const labelLayer = () => map.getLayers().getArray().find((l) => l.get('swathKey') === 'tasking-order-labels') as VectorLayer | undefined;
    const first: OrderRow[] = await mergeOrderRows([], poll(record(1), record(2), record(3)));
    drawOrders(first, null);
    // The labels are drawn once their layer is on the map.
    await vi.waitFor(() => expect(orderLabelOf(guid(3))).not.toBeNull());
    const f1 = featureOf(LAYERS.orders, guid(1));
    const f2 = featureOf(LAYERS.orders, guid(2));
    const label1 = orderLabelOf(guid(1));
    const label2 = orderLabelOf(guid(2));
    expect(f1 && f2 && label1 && label2).toBeTruthy();

    // Order 2 moves (a new footprint), order 3 is gone, 4 is new; order 1 is the same order.
    const next = await mergeOrderRows(first, poll(record(1), record(2, 'Review', wkt(9)), record(4)));
    drawOrders(next, null);
    await vi.waitFor(() => expect(orderLabelOf(guid(4))).not.toBeNull());
    expect(featureOf(LAYERS.orders, guid(1))).toBe(f1);
    expect(orderLabelOf(guid(1))).toBe(label1);
    expect(featureOf(LAYERS.orders, guid(2))).not.toBe(f2);
    expect(orderLabelOf(guid(2))).not.toBe(label2);
    expect(featureIds(LAYERS.orders).sort()).toEqual([guid(1), guid(2), guid(4)]);
    expect(orderLabelOf(guid(3))).toBeNull();

    // A status change keeps the footprint (same area) and the label's feature; only the label's text, which names the status, is new.
    const third = await mergeOrderRows(next, poll(record(1, 'Processing'), record(2, 'Review', wkt(9)), record(4)));
    const label4 = orderLabelOf(guid(4));
    const labelSource = labelLayer()!.getSource()!;
    const revision = labelSource.getRevision();
    drawOrders(third, null);
    await vi.waitFor(() => expect(orderLabelText(guid(1))).toContain('Processing'));
    expect(featureOf(LAYERS.orders, guid(1))).toBe(f1);
    expect(orderLabelOf(guid(1))).toBe(label1);
    expect(orderLabelOf(guid(4))).toBe(label4);
    // Redrawn once for the new text.
    expect(labelSource.getRevision()).toBe(revision + 1);
    expect(labelSource.getFeatures()).toHaveLength(3);
  });

  it('a poll with nothing changed touches no footprint and no label', async () => {
    const map = new OlMap({ view: new View() });
    provideMap(map);
    const layerOf = (key: string) => map.getLayers().getArray().find((l) => l.get('swathKey') === key) as VectorLayer | undefined;
    const records = Array.from({ length: 50 }, (_, i) => record(i, i % 3 ? 'Review' : 'Processing'));
    const first = await mergeOrderRows([], poll(...records));
    drawOrders(first, null);
    await vi.waitFor(() => expect(orderLabelOf(guid(49))).not.toBeNull());
    await vi.waitFor(() => expect(layerOf(LAYERS.orders)).toBeDefined());
    const footprints = layerOf(LAYERS.orders)!.getSource()!;
    const labels = layerOf('tasking-order-labels')!.getSource()!;
    const revisions = [footprints.getRevision(), labels.getRevision()];
    const again = await mergeOrderRows(first, poll(...records));
    expect(again).toBe(first);
    drawOrders(again, null);
    // A later change is drawn after this one: once it shows, this one has run.
    drawOrders(await mergeOrderRows(again, poll(...records.slice(0, 49), record(49, 'Completed'))), null);
    await vi.waitFor(() => expect(orderLabelText(guid(49))).toContain('Completed'));
    expect([footprints.getRevision(), labels.getRevision()]).toEqual([revisions[0], revisions[1]! + 1]);
  });

  it('keeps the selection and hover on the ids that stay, and drops them with a removed feature', async () => {
    updateFeatures('orders-test', [{ id: 'a', geometry: wkt(1) }, { id: 'b', geometry: wkt(2) }]);
    select('orders-test', 'a');
    highlight('orders-test', 'b');
    const a = featureOf('orders-test', 'a');
    const r = updateFeatures('orders-test', [{ id: 'a', geometry: wkt(1) }]);
    expect(r).toEqual({ added: 0, removed: 1, kept: 1, skipped: 0 });
    expect(featureOf('orders-test', 'a')).toBe(a);
    expect(stateOf('orders-test', 'a')).toBe('selected');
    expect(stateOf('orders-test', 'b')).toBe('normal');
    // Other properties or colour: the feature is drawn anew.
    updateFeatures('orders-test', [{ id: 'a', geometry: wkt(1), color: '#ff0000' }]);
    expect(featureOf('orders-test', 'a')).not.toBe(a);
  });
});

describe('order labels at 1,000 orders', () => {
  it('are drawn only from a readable zoom, while the selected and hovered orders are labelled at every zoom, above the others', async () => {
    const map = new OlMap({ view: new View({ center: [0, 0], zoom: 4 }) });
    provideMap(map);
    const rows: OrderRow[] = await mergeOrderRows([], poll(...Array.from({ length: 1000 }, (_, i) => record(i % 60 + Math.floor(i / 60) * 100))));
    expect(rows).toHaveLength(1000);
    const [a, b, c] = [rows[0]!.key, rows[1]!.key, rows[2]!.key];
    drawOrders(rows, a);
    const layer = (key: string) => map.getLayers().getArray().find((l) => l.get('swathKey') === key) as VectorLayer | undefined;
    await vi.waitFor(() => expect(focusLabelTexts()).toEqual({ [a]: expect.stringContaining(`Order ${a.slice(0, 8)}…`) }));
    const labels = layer('tasking-order-labels')!;
    const focusLayer = layer('tasking-order-focus-labels')!;
    expect(labels.getSource()!.getFeatures()).toHaveLength(1000);
    // Far out the thousand labels are not drawn (nor decluttered); the selected one is.
    const view = map.getView();
    expect(labels.isVisible(view)).toBe(false);
    expect(focusLayer.isVisible(view)).toBe(true);
    view.setZoom(ORDER_LABEL_MIN_ZOOM + 1);
    expect(labels.isVisible(view)).toBe(true);
    // Decluttered with the place names, the focus labels above the others so nothing hides them.
    expect(focusLayer.getDeclutter()).toBe(labels.getDeclutter());
    expect(focusLayer.getZIndex()!).toBeGreaterThan(labels.getZIndex()!);

    // Hovering labels that order too; its status change reaches the focus label; leaving drops it.
    highlightOrder(b);
    await vi.waitFor(() => expect(Object.keys(focusLabelTexts()).sort()).toEqual([a, b].sort()));
    drawOrders(await mergeOrderRows(rows, poll(...Array.from({ length: 1000 }, (_, i) => record(i % 60 + Math.floor(i / 60) * 100, i === 1 ? 'Completed' : 'Review')))), c);
    await vi.waitFor(() => expect(focusLabelTexts()[b]).toContain('· Completed'));
    expect(Object.keys(focusLabelTexts()).sort()).toEqual([b, c].sort());
    highlightOrder(null);
    await vi.waitFor(() => expect(Object.keys(focusLabelTexts())).toEqual([c]));
  });
});
