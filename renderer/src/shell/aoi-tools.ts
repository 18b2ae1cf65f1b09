import Feature from 'ol/Feature';
import type OlMap from 'ol/Map';
import GeoJSON from 'ol/format/GeoJSON';
import type Geometry from 'ol/geom/Geometry';
import type { Condition } from 'ol/events/condition';
import Draw, { createBox } from 'ol/interaction/Draw';
import Modify from 'ol/interaction/Modify';
import Snap from 'ol/interaction/Snap';
import VectorLayer from 'ol/layer/Vector';
import VectorSource from 'ol/source/Vector';
import { Circle as CircleStyle, Fill, Stroke, Style } from 'ol/style';
import { watch } from 'vue';
import type { AnyGeometry } from '../platform/lib/geometry';
import { useAoiStore } from '../platform/stores/aoi';
import { aoiTools, setAoiTools, type AoiTools } from '../platform/map/aoi-tools-handle';
import { mapState } from '../platform/map/map-state';
import { overlayZ } from '../platform/map/z-order';

/**
 * The AOI on the map: its layer, drawing (polygon, rectangle) and vertex
 * editing, kept in sync with the aoi store in both directions.
 */

const geojson = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });


function aoiStyles(invalid: boolean): Style[] {
  const color = invalid ? '#dc2626' : '#f59e0b';
  return [
    new Style({
      fill: new Fill({ color: invalid ? 'rgba(220, 38, 38, 0.12)' : 'rgba(245, 158, 11, 0.14)' }),
      stroke: new Stroke({ color: 'rgba(0,0,0,0.35)', width: 4 }),
      zIndex: 0,
    }),
    new Style({ stroke: new Stroke({ color, width: 2, lineDash: invalid ? [8, 5] : undefined }), zIndex: 1 }),
  ];
}

const vertexStyle = new Style({
  image: new CircleStyle({ radius: 5, fill: new Fill({ color: '#ffffff' }), stroke: new Stroke({ color: '#f59e0b', width: 2 }) }),
});

/** How far (px) a press may move and still be a click, for OpenLayers' Draw and the rectangle's gesture alike. */
const CLICK_TOLERANCE_PX = 6;

/**
 * The rectangle tool's freehand condition: a rectangle is dragged out in one gesture (as in most
 * GIS tools) or drawn by two clicks, one per corner (as the polygon tool draws). Each gesture starts
 * freehand, so a press that moves draws the box and its release finishes it. A press released
 * where it started (a click) leaves freehand: OpenLayers' Draw then keeps that corner instead of
 * aborting, the box follows the pointer, and the next click finishes it. One condition per drawing.
 */
function dragOrClicks(): Condition {
  let down: number[] | null = null;
  let dragged = false;
  let clicked = false;
  return (e) => {
    if (clicked) return false;
    if (e.type === 'pointerdown') {
      down = e.pixel;
      dragged = false;
    } else if (e.type === 'pointerdrag' && down) {
      dragged ||= Math.hypot(e.pixel[0]! - down[0]!, e.pixel[1]! - down[1]!) > CLICK_TOLERANCE_PX;
    } else if (e.type === 'pointerup' && down && !dragged) {
      clicked = true;
      return false;
    }
    return true;
  };
}

/** Installs the AOI layer and tools on the map (MapView calls this once). */
export function installAoiTools(map: OlMap): AoiTools {
  const aoi = useAoiStore();
  const source = new VectorSource<Feature<Geometry>>();
  // One feature: cheap to redraw on every frame, so it never lags behind a zoom animation.
  const layer = new VectorLayer({ source, zIndex: overlayZ(50), updateWhileAnimating: true, updateWhileInteracting: true, properties: { swathAoi: true }, style: () => aoiStyles(!aoi.valid && !!aoi.geometry) });
  map.addLayer(layer);
  let syncing = false;
  let lastFromMap = -1;

  const modify = new Modify({ source, style: vertexStyle, pixelTolerance: 8 });
  const snap = new Snap({ source, pixelTolerance: 8 });
  map.addInteraction(modify);
  map.addInteraction(snap);
  modify.setActive(mapState.editing);

  function fromMap(geometry: Geometry, from: 'polygon' | 'rectangle' | 'edit'): void {
    const g = geojson.writeGeometryObject(geometry) as unknown as AnyGeometry;
    syncing = true;
    aoi.setGeometry(g, from, null);
    lastFromMap = aoi.revision;
    syncing = false;
  }

  modify.on('modifyend', (e) => {
    const f = e.features.item(0);
    const g = f?.getGeometry();
    if (g) fromMap(g, 'edit');
  });

  const stop = watch(
    () => aoi.revision,
    (rev) => {
      layer.changed();
      if (syncing || rev === lastFromMap) return;
      source.clear();
      if (!aoi.geometry) return;
      try {
        const g = geojson.readGeometry(aoi.geometry);
        if (g) source.addFeature(new Feature({ geometry: g }));
      } catch {
        // Unreadable geometry: the problems list explains it.
      }
    },
    { immediate: true },
  );
  const stopValid = watch(() => aoi.valid, () => layer.changed());

  let draw: Draw | null = null;
  let drawKind: 'polygon' | 'rectangle' | null = null;
  /** Vertices placed by keyboard in the current sketch (pointer vertices end keyboard drawing's count with the sketch). */
  let keyed: number[][] = [];

  function endDraw(): void {
    keyed = [];
    drawKind = null;
    if (draw) {
      map.removeInteraction(draw);
      draw = null;
    }
    mapState.drawing = null;
    modify.setActive(mapState.editing);
    map.getTargetElement()?.classList.remove('drawing');
  }

  function start(kind: 'polygon' | 'rectangle'): void {
    endDraw();
    modify.setActive(false);
    draw =
      kind === 'polygon'
        ? new Draw({ type: 'Polygon', stopClick: true })
        : new Draw({ type: 'Circle', geometryFunction: createBox(), stopClick: true, clickTolerance: CLICK_TOLERANCE_PX, freehandCondition: dragOrClicks() });
    draw.on('drawend', (e) => {
      const g = e.feature.getGeometry();
      source.clear();
      if (g) {
        source.addFeature(new Feature({ geometry: g }));
        fromMap(g, kind);
      }
      // Leave the tool after the interaction has finished handling this event.
      setTimeout(endDraw, 0);
    });
    draw.on('drawabort', () => {
      keyed = [];
    });
    map.addInteraction(draw);
    drawKind = kind;
    mapState.drawing = kind;
    map.getTargetElement()?.classList.add('drawing');
  }

  const tools: AoiTools = {
    drawPolygon: () => start('polygon'),
    drawRectangle: () => start('rectangle'),
    cancel() {
      draw?.abortDrawing();
      endDraw();
    },
    removeLastPoint() {
      draw?.removeLastPoint();
      keyed.pop();
    },
    keyVertex(coordinate, finish = false) {
      if (!draw || drawKind !== 'polygon') return false;
      const last = keyed.at(-1);
      const same = !!last && Math.hypot(last[0]! - coordinate[0]!, last[1]! - coordinate[1]!) < map.getView().getResolution()! * CLICK_TOLERANCE_PX;
      if ((finish || same) && keyed.length >= 3) {
        draw.finishDrawing();
        return true;
      }
      if (finish || same) return true;
      draw.appendCoordinates([coordinate]);
      keyed.push([...coordinate]);
      return true;
    },
    setEditing(on: boolean) {
      mapState.editing = on;
      if (!draw) modify.setActive(on);
    },
    zoomToAoi() {
      const ext = source.getExtent();
      if (source.getFeatures().length && ext && Number.isFinite(ext[0])) {
        map.getView().fit(ext, { padding: [64, 64, 64, 64], maxZoom: 15, duration: 250 });
      }
    },
    dispose() {
      endDraw();
      stop();
      stopValid();
      map.removeInteraction(modify);
      map.removeInteraction(snap);
      map.removeLayer(layer);
      if (aoiTools() === tools) {
        setAoiTools(null);
        mapState.aoiTools = false;
      }
    },
  };
  setAoiTools(tools);
  mapState.aoiTools = true;
  return tools;
}
