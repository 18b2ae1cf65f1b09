import Feature from 'ol/Feature';
import type OlMap from 'ol/Map';
import type MapBrowserEvent from 'ol/MapBrowserEvent';
import { createEmpty, extend, isEmpty, type Extent } from 'ol/extent';
import GeoJSON from 'ol/format/GeoJSON';
import WKT from 'ol/format/WKT';
import type Geometry from 'ol/geom/Geometry';
import VectorLayer from 'ol/layer/Vector';
import VectorImageLayer from 'ol/layer/VectorImage';
import VectorSource from 'ol/source/Vector';
import { Fill, Stroke, Style } from 'ol/style';
import type { FeatureLike } from 'ol/Feature';
import { currentMap, whenMap } from './map-context';
import { overlayZ } from './z-order';

/**
 * Vector overlays by layer key: any panel draws service geometries (search
 * results, products, plans, tiles, orders) with `setFeatures(key, items)` and
 * links them to its list with `highlight`, `select`, `onHover` and `onClick`.
 * Layers exist before the map does and join it as soon as MapView provides it.
 */

/** One geometry to draw: WKT or a GeoJSON geometry, in EPSG:4326. */
export interface VectorItem {
  id: string;
  geometry: unknown;
  /** Anything the owner wants back from hover/click handlers. */
  properties?: Record<string, unknown>;
  /** Overrides the layer colour for this feature (e.g. per constellation). */
  color?: string;
}

/** Named looks; colours come from the theme unless given. */
export type VectorLook = 'result' | 'tile' | 'minitile' | 'product' | 'plan' | 'order' | 'outline' | 'choropleth';

/** Options of a layer, given with {@link setFeatures}. */
export interface LayerOptions {
  look?: VectorLook;
  /** CSS colour of strokes and fills (fills are translucent). */
  color?: string;
  zIndex?: number;
  /** Whether hover/click handlers see this layer (default true). */
  interactive?: boolean;
}

interface Entry {
  layer: VectorImageLayer<VectorSource<Feature<Geometry>>>;
  source: VectorSource<Feature<Geometry>>;
  /** Highlighted and selected features, drawn above so the big image never re-renders on hover. */
  overlay: VectorLayer<VectorSource<Feature<Geometry>>>;
  overlaySource: VectorSource<Feature<Geometry>>;
  options: Required<Omit<LayerOptions, 'color'>> & { color: string | null };
  highlighted: Set<string>;
  selected: Set<string>;
  hover: Set<(id: string | null, props: Record<string, unknown> | null) => void>;
  click: Set<(id: string, props: Record<string, unknown>, event: MapBrowserEvent) => void>;
}

const layers = new Map<string, Entry>();
const wkt = new WKT();
const geojson = new GeoJSON();
const styleCache = new Map<string, Style>();
let listenersOn: OlMap | null = null;
let hovered: { key: string; id: string } | null = null;

/** Default colours per look (light and dark themes both read them well). */
const LOOK_COLORS: Record<VectorLook, string> = {
  result: '#2f6fde',
  tile: '#8a5cf6',
  minitile: '#d9468f',
  product: '#0f9d8a',
  plan: '#d97706',
  order: '#16a34a',
  outline: '#64748b',
  choropleth: '#64748b',
};

const PALETTE = ['#2f6fde', '#0f9d8a', '#d97706', '#d9468f', '#8a5cf6', '#16a34a', '#dc2626', '#0891b2', '#a16207', '#7c3aed', '#be185d'];

/** A stable colour for a category name (constellation, model, status). */
export function colorFor(name: string): string {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

function rgba(hex: string, alpha: number): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) return hex;
  return `rgba(${parseInt(m[1]!, 16)}, ${parseInt(m[2]!, 16)}, ${parseInt(m[3]!, 16)}, ${alpha})`;
}

function styleFor(look: VectorLook, color: string, state: 'normal' | 'hover' | 'selected'): Style {
  const cacheKey = `${look}|${color}|${state}`;
  let s = styleCache.get(cacheKey);
  if (s) return s;
  const dashed = look === 'plan' || look === 'minitile';
  // A choropleth's fill carries its value (each feature's own colour), so it is nearly opaque.
  const baseAlpha = look === 'choropleth' ? 0.75 : look === 'outline' ? 0 : look === 'tile' || look === 'minitile' ? 0.06 : 0.12;
  const fillAlpha = look === 'choropleth' ? (state === 'normal' ? baseAlpha : 0.9) : state === 'hover' ? 0.38 : state === 'selected' ? 0.3 : baseAlpha;
  s = new Style({
    fill: new Fill({ color: rgba(color, fillAlpha) }),
    stroke: new Stroke({
      color: look === 'choropleth' ? (state === 'normal' ? 'rgba(30, 41, 59, 0.6)' : '#111827') : state === 'normal' ? rgba(color, 0.9) : color,
      width: state === 'hover' ? 3 : state === 'selected' ? 2.5 : look === 'minitile' ? 1 : 1.5,
      lineDash: dashed && state === 'normal' ? [6, 4] : undefined,
    }),
    zIndex: state === 'hover' ? 3 : state === 'selected' ? 2 : 1,
  });
  styleCache.set(cacheKey, s);
  return s;
}

function viewProjection(): string {
  return currentMap()?.getView().getProjection().getCode() ?? 'EPSG:3857';
}

/** Reads WKT or GeoJSON (EPSG:4326) into a map geometry; null when it cannot be read. */
export function readGeometry(value: unknown, featureProjection = viewProjection()): Geometry | null {
  const opts = { dataProjection: 'EPSG:4326', featureProjection };
  try {
    if (typeof value === 'string') {
      const text = value.trim();
      if (text.startsWith('{')) return geojson.readGeometry(JSON.parse(text), opts);
      return wkt.readGeometry(text.replace(/^SRID=4326;/i, ''), opts);
    }
    if (value && typeof value === 'object') return geojson.readGeometry(value, opts);
  } catch {
    return null;
  }
  return null;
}

function ensure(key: string, options: LayerOptions = {}): Entry {
  let entry = layers.get(key);
  if (!entry) {
    const source = new VectorSource<Feature<Geometry>>();
    const overlaySource = new VectorSource<Feature<Geometry>>();
    const e: Entry = {
      source,
      overlaySource,
      layer: undefined as never,
      overlay: undefined as never,
      options: { look: 'result', color: null, zIndex: 20, interactive: true },
      highlighted: new Set(),
      selected: new Set(),
      hover: new Set(),
      click: new Set(),
    };
    const colorOf = (f: FeatureLike) => (f.get('swathColor') as string | undefined) ?? e.options.color ?? LOOK_COLORS[e.options.look];
    e.layer = new VectorImageLayer({
      source,
      properties: { swathKey: key },
      // Drawn once into an image that panning only moves: thousands of polygons stay smooth mid-drag.
      imageRatio: 1.5,
      style: (f: FeatureLike) => styleFor(e.options.look, colorOf(f), 'normal'),
    });
    e.overlay = new VectorLayer({
      source: overlaySource,
      updateWhileAnimating: true,
      updateWhileInteracting: true,
      style: (f: FeatureLike) => styleFor(e.options.look, colorOf(f), f.get('swathState') as 'hover' | 'selected'),
    });
    entry = e;
    layers.set(key, entry);
    void whenMap().then((map) => {
      if (layers.get(key) === e && !map.getLayers().getArray().includes(e.layer)) {
        map.addLayer(e.layer);
        map.addLayer(e.overlay);
      }
      installListeners(map);
    });
  }
  if (options.look) entry.options.look = options.look;
  if (options.color !== undefined) entry.options.color = options.color;
  if (options.zIndex !== undefined) entry.options.zIndex = options.zIndex;
  if (options.interactive !== undefined) entry.options.interactive = options.interactive;
  // Above every raster preview (z-order.ts): a footprint is never hidden by a raster opened over it.
  entry.layer.setZIndex(overlayZ(entry.options.zIndex));
  entry.overlay.setZIndex(overlayZ(entry.options.zIndex + 0.5));
  return entry;
}

/** A feature drawn from an item (null when its geometry cannot be read); it remembers the item's geometry value and projection. */
function featureOfItem(item: VectorItem, projection: string): Feature<Geometry> | null {
  const geometry = readGeometry(item.geometry, projection);
  if (!geometry) return null;
  const f = new Feature<Geometry>({ geometry });
  f.setId(item.id);
  f.set('swathProps', item.properties ?? {}, true);
  f.set('swathFrom', { geometry: item.geometry, projection }, true);
  if (item.color) f.set('swathColor', item.color, true);
  return f;
}

function sameProps(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.is(a[k], b[k]));
}

/** Replaces the features of a layer (created on first use); returns how many were drawn and how many could not be read. */
export function setFeatures(key: string, items: readonly VectorItem[], options: LayerOptions = {}): { drawn: number; skipped: number } {
  const e = ensure(key, options);
  const projection = viewProjection();
  const features: Feature<Geometry>[] = [];
  let skipped = 0;
  for (const item of items) {
    const f = featureOfItem(item, projection);
    if (f) features.push(f);
    else skipped++;
  }
  e.highlighted.clear();
  e.selected.clear();
  e.overlaySource.clear(true);
  e.source.clear(true);
  e.source.addFeatures(features);
  return { drawn: features.length, skipped };
}

/**
 * Brings a layer's features to `items` by id, touching only what changed: a feature whose item has
 * the same geometry value (the same object or string), colour and properties is kept as it is (the
 * same Feature, never redrawn from scratch); a changed item's feature is replaced, a missing id's
 * removed, a new id's added. Highlight and selection stay on the ids that remain. For lists that
 * refresh in place (the orders poll); a layer drawn anew each time uses {@link setFeatures}.
 */
export function updateFeatures(key: string, items: readonly VectorItem[], options: LayerOptions = {}): { added: number; removed: number; kept: number; skipped: number } {
  const e = ensure(key, options);
  const projection = viewProjection();
  const old = new Map<string, Feature<Geometry>>();
  for (const f of e.source.getFeatures()) old.set(String(f.getId()), f);
  const add: Feature<Geometry>[] = [];
  const seen = new Set<string>();
  let kept = 0;
  let skipped = 0;
  for (const item of items) {
    if (seen.has(item.id)) continue;
    seen.add(item.id);
    const f = old.get(item.id);
    const from = f?.get('swathFrom') as { geometry: unknown; projection: string } | undefined;
    const props = item.properties ?? {};
    if (f && from && from.geometry === item.geometry && from.projection === projection &&
        (f.get('swathColor') as string | undefined) === (item.color || undefined) && sameProps(f.get('swathProps') as Record<string, unknown>, props)) {
      old.delete(item.id);
      kept++;
      continue;
    }
    const next = featureOfItem(item, projection);
    if (!next) skipped++;
    else add.push(next);
  }
  // What is left of the old features changed or left the list.
  const remove = [...old.values()];
  if (!add.length && !remove.length) return { added: 0, removed: 0, kept, skipped };
  if (remove.length) e.source.removeFeatures(remove);
  if (add.length) e.source.addFeatures(add);
  // The overlay copies geometries: redrawn when a highlighted or selected feature changed or left.
  let overlay = false;
  for (const set of [e.highlighted, e.selected]) {
    for (const id of [...set]) {
      if (!old.has(id)) continue;
      overlay = true;
      if (!e.source.getFeatureById(id)) set.delete(id);
    }
  }
  if (overlay) refreshOverlay(e);
  return { added: add.length, removed: remove.length, kept, skipped };
}

/** The feature drawn for an id (tests: whether an update kept it). */
export function featureOf(key: string, id: string): Feature<Geometry> | null {
  return layers.get(key)?.source.getFeatureById(id) ?? null;
}

/** Removes every feature of a layer. */
export function clearLayer(key: string): void {
  const e = layers.get(key);
  if (!e) return;
  e.highlighted.clear();
  e.selected.clear();
  e.overlaySource.clear();
  e.source.clear();
}

/** Shows or hides a layer. */
export function setLayerVisible(key: string, visible: boolean): void {
  const e = layers.get(key);
  e?.layer.setVisible(visible);
  e?.overlay.setVisible(visible);
}

function refreshOverlay(e: Entry): void {
  const out: Feature<Geometry>[] = [];
  const add = (id: string, state: 'hover' | 'selected') => {
    const f = e.source.getFeatureById(id);
    const g = f?.getGeometry();
    if (!f || !g) return;
    const copy = new Feature<Geometry>({ geometry: g });
    copy.set('swathState', state, true);
    const color = f.get('swathColor') as string | undefined;
    if (color) copy.set('swathColor', color, true);
    out.push(copy);
  };
  for (const id of e.selected) if (!e.highlighted.has(id)) add(id, 'selected');
  for (const id of e.highlighted) add(id, 'hover');
  e.overlaySource.clear(true);
  e.overlaySource.addFeatures(out);
}

/** Highlights (hover look) the given features of a layer; null or [] clears it. */
export function highlight(key: string, ids: string | readonly string[] | null): void {
  const e = layers.get(key);
  if (!e) return;
  const next = ids == null ? [] : typeof ids === 'string' ? [ids] : ids;
  if (next.length === e.highlighted.size && next.every((id) => e.highlighted.has(id))) return;
  e.highlighted = new Set(next);
  refreshOverlay(e);
}

/** Marks features of a layer as selected (persistent look); null or [] clears it. */
export function select(key: string, ids: string | readonly string[] | null): void {
  const e = layers.get(key);
  if (!e) return;
  e.selected = new Set(ids == null ? [] : typeof ids === 'string' ? [ids] : ids);
  refreshOverlay(e);
}

/** How a feature is drawn now: highlighted (hover), selected, or normal. */
export function stateOf(key: string, id: string): 'hover' | 'selected' | 'normal' {
  const e = layers.get(key);
  if (!e) return 'normal';
  return e.highlighted.has(id) ? 'hover' : e.selected.has(id) ? 'selected' : 'normal';
}

/** Ids of the features of a layer. */
export function featureIds(key: string): string[] {
  return layers.get(key)?.source.getFeatures().map((f) => String(f.getId())) ?? [];
}

/** Number of features in a layer. */
export function featureCount(key: string): number {
  return layers.get(key)?.source.getFeatures().length ?? 0;
}

/** Extent (view projection) of a layer or of some of its features; null when empty. */
export function layerExtent(key: string, ids?: readonly string[]): Extent | null {
  const e = layers.get(key);
  if (!e) return null;
  const ext = createEmpty();
  for (const f of e.source.getFeatures()) {
    if (ids && !ids.includes(String(f.getId()))) continue;
    const g = f.getGeometry();
    if (g) extend(ext, g.getExtent());
  }
  return isEmpty(ext) ? null : ext;
}

/** Zooms the map to a layer (or some of its features). */
export async function fitTo(key: string, ids?: readonly string[], options: { maxZoom?: number; duration?: number } = {}): Promise<void> {
  const map = await whenMap();
  const ext = layerExtent(key, ids);
  if (!ext) return;
  map.getView().fit(ext, { padding: [48, 48, 48, 48], maxZoom: options.maxZoom ?? 14, duration: options.duration ?? 250 });
}

/** Draws one geometry on the shared "result-view" layer and zooms to it (the generic "show on map"). */
export async function showGeometry(geometry: unknown, id = 'shown', key = 'result-view'): Promise<boolean> {
  const { drawn } = setFeatures(key, [{ id, geometry }], { look: 'result', color: '#e11d48', zIndex: 40, interactive: false });
  if (!drawn) return false;
  await fitTo(key);
  return true;
}

/** Calls back when the pointer enters or leaves a feature of the layer; returns the unsubscribe function. */
export function onHover(key: string, cb: (id: string | null, props: Record<string, unknown> | null) => void): () => void {
  const e = ensure(key);
  e.hover.add(cb);
  return () => e.hover.delete(cb);
}

/** Calls back when a feature of the layer is clicked; returns the unsubscribe function. */
export function onClick(key: string, cb: (id: string, props: Record<string, unknown>, event: MapBrowserEvent) => void): () => void {
  const e = ensure(key);
  e.click.add(cb);
  return () => e.click.delete(cb);
}

function hitAt(map: OlMap, pixel: number[]): { key: string; id: string; props: Record<string, unknown> } | null {
  let hit: { key: string; id: string; props: Record<string, unknown> } | null = null;
  map.forEachFeatureAtPixel(
    pixel,
    (f, layer) => {
      const key = layer?.get('swathKey') as string | undefined;
      if (!key) return false;
      hit = { key, id: String(f.getId()), props: (f.get('swathProps') as Record<string, unknown>) ?? {} };
      return true;
    },
    {
      hitTolerance: 3,
      layerFilter: (l) => {
        const key = l.get('swathKey') as string | undefined;
        const e = key ? layers.get(key) : undefined;
        return !!e && e.options.interactive && (e.hover.size > 0 || e.click.size > 0) && l.getVisible();
      },
    },
  );
  return hit;
}

function setHovered(next: { key: string; id: string; props: Record<string, unknown> } | null): void {
  if (hovered && next && hovered.key === next.key && hovered.id === next.id) return;
  if (hovered) {
    const prev = layers.get(hovered.key);
    prev?.hover.forEach((cb) => cb(null, null));
  }
  hovered = next ? { key: next.key, id: next.id } : null;
  if (next) layers.get(next.key)?.hover.forEach((cb) => cb(next.id, next.props));
}

function installListeners(map: OlMap): void {
  if (listenersOn === map) return;
  listenersOn = map;
  let frame = 0;
  let lastPixel: number[] | null = null;
  map.on('pointermove', (evt) => {
    if (evt.dragging) return;
    lastPixel = evt.pixel;
    if (frame) return;
    // One hit test per animation frame, however fast the pointer moves.
    frame = requestAnimationFrame(() => {
      frame = 0;
      if (!lastPixel) return;
      const hit = hitAt(map, lastPixel);
      setHovered(hit);
      map.getTargetElement()?.classList.toggle('hover-feature', !!hit);
    });
  });
  map.getViewport()?.addEventListener('pointerleave', () => setHovered(null));
  map.on('singleclick', (evt) => {
    const hit = hitAt(map, evt.pixel);
    if (hit) layers.get(hit.key)?.click.forEach((cb) => cb(hit.id, hit.props, evt));
  });
}

/** Test hook: forgets every layer (their features and handlers). */
export function resetVectorLayers(): void {
  for (const e of layers.values()) {
    e.source.clear();
    e.overlaySource.clear();
    const map = currentMap();
    map?.removeLayer(e.layer);
    map?.removeLayer(e.overlay);
  }
  layers.clear();
  hovered = null;
  listenersOn = null;
}
