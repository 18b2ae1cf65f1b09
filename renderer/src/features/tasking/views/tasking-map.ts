import Feature from 'ol/Feature';
import type OlMap from 'ol/Map';
import { platformModifierKeyOnly } from 'ol/events/condition';
import type { Extent } from 'ol/extent';
import type Geometry from 'ol/geom/Geometry';
import { getCenter } from 'ol/extent';
import Point from 'ol/geom/Point';
import Polygon from 'ol/geom/Polygon';
import DragBox from 'ol/interaction/DragBox';
import VectorLayer from 'ol/layer/Vector';
import VectorSource from 'ol/source/Vector';
import { Fill, Stroke, Style, Text } from 'ol/style';
import type { TileCell } from '../model/tasking-records';
import { whenMap } from '../../../platform/map/map-context';
import { PLACE_LABELS } from '../../../platform/map/context-layers';
import { clearLayer, fitTo, highlight, onClick, onHover, readGeometry, select, setFeatures, updateFeatures } from '../../../platform/map/vector-layers';
import type { OrderRow } from '../stores/tasking-orders';
import { overlayZ } from '../../../platform/map/z-order';

/**
 * The tasking panel's map overlays: tiles and mini-tiles (two layers with
 * their own looks, plus GUID/EPSG labels), order areas, and the tile selection
 * gestures (click, box-select by dragging with Ctrl/Cmd or in box mode).
 */

/** Layer keys of vector-layers used by the tasking panel. */
export const LAYERS = { tiles: 'tasking-tiles', miniTiles: 'tasking-minitiles', orders: 'tasking-orders' } as const;
const TILE_LABELS = 'tasking-tile-labels';
const ORDER_LABELS = 'tasking-order-labels';
const ORDER_FOCUS_LABELS = 'tasking-order-focus-labels';
/**
 * Order labels are drawn above this zoom (exclusive, as a layer's minZoom; with the major place
 * names): there an order's 0.05° square is tens of pixels and its label can be told apart. Farther
 * out, 1,000 labels would be decluttered on every redraw to show a few unreadable ones.
 */
export const ORDER_LABEL_MIN_ZOOM = 8;

/** The property of an order label feature holding its style (text, status): see drawOrders. */
const LABEL_STYLE = 'swathLabelStyle';

type LabelLayer = VectorLayer<VectorSource<Feature<Geometry>>>;
const labelLayers = new Map<string, LabelLayer>();

type LabelLook = 'tile' | 'minitile' | 'order';
const LABEL_FONTS: Record<LabelLook, string> = { order: '600 11px system-ui, sans-serif', minitile: '10px ui-monospace, Menlo, Consolas, monospace', tile: '11px ui-monospace, Menlo, Consolas, monospace' };
/** The fills and the halo, shared by every label of a look (never changed once made): a poll restyling 1,000 labels makes only their texts. */
const LABEL_FILLS: Record<LabelLook, Fill> = { order: new Fill({ color: '#065f46' }), minitile: new Fill({ color: '#9d174d' }), tile: new Fill({ color: '#5b21b6' }) };
const LABEL_HALO = new Stroke({ color: 'rgba(255,255,255,0.9)', width: 3 });

function labelStyle(text: string, look: LabelLook): Style {
  return new Style({ text: new Text({ text, font: LABEL_FONTS[look], fill: LABEL_FILLS[look], stroke: LABEL_HALO, overflow: false }) });
}

/** The label layer of one overlay (decluttered, above it; in `group` with other layers' labels; drawn above `minZoom`), on the map. */
async function labels(key: string, zIndex: number, group: boolean | string = true, minZoom?: number): Promise<LabelLayer> {
  const map = await whenMap();
  let layer = labelLayers.get(key);
  if (!layer) {
    layer = new VectorLayer({
      source: new VectorSource(), declutter: group, zIndex: overlayZ(zIndex), properties: { swathKey: key }, ...(minZoom !== undefined ? { minZoom } : {}),
      // A feature's own style wins; order labels carry theirs as a property, replaced without an event.
      style: (f) => f.get(LABEL_STYLE) as Style | undefined,
    });
    labelLayers.set(key, layer);
  }
  if (!map.getLayers().getArray().includes(layer)) map.addLayer(layer);
  return layer;
}

/** Where a footprint's label goes: inside a polygon, else the middle of its extent. */
function labelPoint(g: Geometry): Point {
  return g instanceof Polygon ? g.getInteriorPoint() : new Point(getCenter(g.getExtent()));
}

/** Draws the tiles and mini-tiles of the last search (selected ones in the selected look) with GUID and EPSG labels. */
export function drawTiles(cells: readonly TileCell[], selected: readonly string[]): void {
  const item = (c: TileCell) => ({ id: c.guid, geometry: c.footprint, properties: { guid: c.guid, epsg: c.epsg, mini: c.mini } });
  setFeatures(LAYERS.tiles, cells.filter((c) => !c.mini).map(item), { look: 'tile', zIndex: 30 });
  setFeatures(LAYERS.miniTiles, cells.filter((c) => c.mini).map(item), { look: 'minitile', zIndex: 30 });
  markSelected(selected);
  void labels(TILE_LABELS, 31).then((layer) => {
    const source = layer.getSource()!;
    source.clear();
    source.addFeatures(cells.flatMap((c) => {
      const g = readGeometry(c.footprint);
      if (!g) return [];
      const f = new Feature<Geometry>({ geometry: new Point(getCenter(g.getExtent())) });
      f.setStyle(labelStyle(`${c.guid.slice(0, 8)}…\n${c.epsg ? `EPSG:${c.epsg}` : ''}`, c.mini ? 'minitile' : 'tile'));
      return [f];
    }));
  });
}

/** Shows which tiles are selected. */
export function markSelected(selected: readonly string[]): void {
  select(LAYERS.tiles, selected);
  select(LAYERS.miniTiles, selected);
}

/** Highlights one tile (hover in the list). */
export function highlightTile(guid: string | null): void {
  highlight(LAYERS.tiles, guid);
  highlight(LAYERS.miniTiles, guid);
}

/** Removes the tile overlays. */
export function clearTiles(): void {
  clearLayer(LAYERS.tiles);
  clearLayer(LAYERS.miniTiles);
  labelLayers.get(TILE_LABELS)?.getSource()?.clear();
}

/** Zooms to the tiles. */
export async function fitTiles(): Promise<void> {
  await fitTo(LAYERS.tiles, undefined, { maxZoom: 12 });
  await fitTo(LAYERS.miniTiles, undefined, { maxZoom: 14 });
}

/** An order footprint's label: its short id, status and period. */
export function orderLabel(r: Pick<OrderRow, 'key' | 'summary'>): string {
  const s = r.summary;
  const id = s.id ? `${s.id.slice(0, 8)}…` : r.key;
  const period = s.from ? (s.recurring ? `from ${s.from}, recurring` : `${s.from} → ${s.to ?? '?'}`) : '';
  return [`Order ${id}${s.status ? ` · ${s.status}` : ''}`, period].filter(Boolean).join('\n');
}

/** The order labels on the map by order key, with the row each was made from. */
const orderLabels = new Map<string, { row: OrderRow; feature: Feature<Geometry> }>();
/** The orders always labelled, at any zoom: the selected and the hovered one. */
const focus = { selected: null as string | null, hovered: null as string | null };
/** The focus layer's labels (copies of the main layer's), by key, with the feature they copy. */
const focusLabels = new Map<string, Feature<Geometry>>();

/**
 * Draws the listed orders' areas, each labelled (id, status, period); the selected one in the selected
 * look. Called on every refresh of the list: only the orders whose row changed (a new row object, see
 * model/order-rows.ts) get a new footprint or label; the others keep theirs, and gone ones are removed.
 * The labels layer is drawn from ORDER_LABEL_MIN_ZOOM, and only its features in the view are
 * decluttered (the source's spatial index); the selected and hovered orders are labelled on a layer
 * of their own at every zoom, above all the other labels.
 */
export function drawOrders(rows: readonly OrderRow[], selectedKey: string | null): void {
  const drawn = rows.filter((r) => r.summary.geometry);
  updateFeatures(LAYERS.orders, drawn.map((r) => ({ id: r.key, geometry: r.summary.geometry, properties: { key: r.key } })), { look: 'order', zIndex: 25 });
  select(LAYERS.orders, selectedKey);
  focus.selected = selectedKey;
  // Decluttered with the map's place names (map/context-layers.ts) and above them, so neither covers the other.
  void labels(ORDER_LABELS, 46, PLACE_LABELS, ORDER_LABEL_MIN_ZOOM).then((layer) => {
    const source = layer.getSource()!;
    const stale = new Map(orderLabels);
    const add: Feature<Geometry>[] = [];
    const remove: Feature<Geometry>[] = [];
    let restyled = false;
    for (const r of drawn) {
      const had = stale.get(r.key);
      stale.delete(r.key);
      if (had?.row === r) continue;
      if (had && had.row.summary.geometry === r.summary.geometry) {
        // The same area (a status change): the label keeps its feature and place, only its text is new.
        // Set silently (no change event, no re-index per label); the layer is redrawn once below.
        had.feature.set(LABEL_STYLE, labelStyle(orderLabel(r), 'order'), true);
        orderLabels.set(r.key, { row: r, feature: had.feature });
        restyled = true;
        continue;
      }
      if (had) {
        remove.push(had.feature);
        orderLabels.delete(r.key);
      }
      const g = readGeometry(r.summary.geometry);
      if (!g) continue;
      const feature = new Feature<Geometry>({ geometry: labelPoint(g) });
      feature.set(LABEL_STYLE, labelStyle(orderLabel(r), 'order'), true);
      orderLabels.set(r.key, { row: r, feature });
      add.push(feature);
    }
    for (const [key, l] of stale) {
      remove.push(l.feature);
      orderLabels.delete(key);
    }
    // One change each way: the label layer is redrawn (decluttered) once, not once per label.
    if (remove.length) source.removeFeatures(remove);
    if (add.length) source.addFeatures(add);
    else if (restyled) source.changed();
    void drawFocusLabels();
  });
}

/**
 * Labels the selected and hovered orders on their own layer: in the place names' declutter group
 * and above every other label layer, so no label hides them (the ones they would overlap give way),
 * and without a minimum zoom. Redrawn only when the focus or its label changed.
 */
async function drawFocusLabels(): Promise<void> {
  const layer = await labels(ORDER_FOCUS_LABELS, 47, PLACE_LABELS);
  const want = new Map<string, Feature<Geometry>>();
  for (const key of [focus.selected, focus.hovered]) {
    const label = key ? orderLabels.get(key)?.feature : undefined;
    if (key && label) want.set(key, label);
  }
  const current = (k: string, f: Feature<Geometry>) => {
    const copy = focusLabels.get(k);
    return copy?.get('swathOf') === f && copy.getStyle() === f.get(LABEL_STYLE);
  };
  if (want.size === focusLabels.size && [...want].every(([k, f]) => current(k, f))) return;
  const source = layer.getSource()!;
  source.clear(true);
  focusLabels.clear();
  const copies = [...want].map(([key, label]) => {
    const copy = new Feature<Geometry>({ geometry: label.getGeometry() });
    copy.setStyle(label.get(LABEL_STYLE) as Style);
    copy.set('swathOf', label, true);
    focusLabels.set(key, copy);
    return copy;
  });
  source.addFeatures(copies);
}

/** The label feature of an order on the map (tests: whether a refresh kept it). */
export function orderLabelOf(key: string): Feature<Geometry> | null {
  return orderLabels.get(key)?.feature ?? null;
}

/** The text of an order's label on the map (null when it has none). */
export function orderLabelText(key: string): string | null {
  const style = orderLabels.get(key)?.feature.get(LABEL_STYLE) as Style | undefined;
  return style ? String(style.getText()?.getText() ?? '') : null;
}

/** The orders labelled at every zoom now (the selected and hovered ones), with their label texts. */
export function focusLabelTexts(): Record<string, string> {
  return Object.fromEntries([...focusLabels].map(([key, f]) => [key, String((f.getStyle() as Style).getText()?.getText() ?? '')]));
}

/** Zooms to one order or all of them. */
export function fitOrders(keys?: readonly string[]): Promise<void> {
  return fitTo(LAYERS.orders, keys, { maxZoom: 12 });
}

/** Highlights one order (hover in the list or on the map) and labels it at any zoom. */
export function highlightOrder(key: string | null): void {
  highlight(LAYERS.orders, key);
  if (focus.hovered === key) return;
  focus.hovered = key;
  void drawFocusLabels();
}

/** Handlers of the map gestures. */
export interface MapHandlers {
  onTileClick(guid: string, additive: boolean): void;
  onTileHover(guid: string | null): void;
  /** Tiles whose footprint touches the dragged box. */
  onBox(guids: string[], additive: boolean): void;
  onOrderClick(key: string): void;
  onOrderHover(key: string | null): void;
  /** Box mode: a plain drag selects instead of panning. */
  boxMode(): boolean;
  /** Footprints to test against a box. */
  cells(): readonly TileCell[];
}

/** Installs the panel's click, hover and box-select handlers; returns the function that removes them. */
export function installMapHandlers(h: MapHandlers): () => void {
  const offs: (() => void)[] = [];
  for (const key of [LAYERS.tiles, LAYERS.miniTiles]) {
    offs.push(onClick(key, (id, _p, evt) => h.onTileClick(id, !!(evt.originalEvent as MouseEvent).shiftKey)));
    offs.push(onHover(key, (id) => h.onTileHover(id)));
  }
  offs.push(onClick(LAYERS.orders, (id) => h.onOrderClick(id)));
  offs.push(onHover(LAYERS.orders, (id) => h.onOrderHover(id)));
  let map: OlMap | null = null;
  let box: DragBox | null = null;
  let disposed = false;
  void whenMap().then((m) => {
    if (disposed) return;
    map = m;
    box = new DragBox({ condition: (e) => h.boxMode() || platformModifierKeyOnly(e), className: 'ol-dragbox tasking-dragbox' });
    box.on('boxend', (e) => {
      const extent: Extent = box!.getGeometry().getExtent();
      const additive = !!(e.mapBrowserEvent?.originalEvent as MouseEvent | undefined)?.shiftKey;
      const hits = h.cells().filter((c) => readGeometry(c.footprint)?.intersectsExtent(extent)).map((c) => c.guid);
      h.onBox(hits, additive);
    });
    m.addInteraction(box);
  });
  return () => {
    disposed = true;
    offs.forEach((off) => off());
    if (map && box) map.removeInteraction(box);
  };
}
