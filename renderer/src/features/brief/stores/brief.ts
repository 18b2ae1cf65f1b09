import { transformExtent } from 'ol/proj';
import { defineStore } from 'pinia';
import { reactive, ref, shallowRef, watch } from 'vue';
import { briefSheetMm, type IpcError, type ResponseOf } from '../../../../../preload/contract';
import { ask } from '../../../platform/request';
import { areaKm2 } from '../../../platform/lib/geometry';
import { formatKm2 } from '../../../platform/lib/format';
import { currentMap } from '../../../platform/map/map-context';
import { rampStops } from '../../../platform/raster/color-ramps';
import { isIndexDisplay } from '../../../platform/raster/display';
import { useAoiStore } from '../../../platform/stores/aoi';
import { useSessionStore } from '../../../platform/stores/session';
import type { PreviewLayer } from '../../../platform/preview/types';
import { usePreviewStore } from '../../library';
import { briefLayout, briefPage, mapPixels, type BriefLegend, type BriefParts, type BriefRaster } from '../model/print-page';
import { useBriefOpenStore } from './brief-open';
import { captureMap } from './capture-map';

/** The dialog's choices. */
export interface BriefOptions {
  paper: 'a4' | 'letter';
  orientation: 'portrait' | 'landscape';
  format: 'pdf' | 'png';
  dpi: 150 | 300;
  title: string;
  text: string;
  chart: boolean;
}

/** Where an export is: what the dialog's progress shows. */
export type BriefStep = 'idle' | 'drawing' | 'printing' | 'done' | 'failed';

/** The dpi the map is drawn at in a PDF: above the 200 dpi a print needs at its size. */
export const PDF_MAP_DPI = 220;

/** A file name stem that says what the brief is: "brief-ndvi-2026-04-10" (letters, digits, dashes). */
export function briefName(title: string, dates: readonly string[]): string {
  const words = title.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '');
  const sorted = [...dates].sort();
  const when = sorted.length === 0 ? '' : sorted.length === 1 ? sorted[0]! : `${sorted[0]}_${sorted.at(-1)}`;
  return ['brief', words, when].filter(Boolean).join('-').slice(0, 120);
}

/** The legend of a layer as it is displayed: its ramp and range, or its composite's channels. */
export function layerLegend(layer: PreviewLayer): BriefLegend | null {
  if (layer.channels.length === 0 || layer.ranges.length === 0) return null;
  const reflectance = layer.bands.some((b) => b.scaling.scale !== 1 || b.scaling.offset !== 0) ? 'reflectance' : 'DN';
  if (layer.display.mode === 'rgb') {
    return { kind: 'rgb', unit: reflectance, channels: layer.channels.slice(0, 3).map((c, i) => ({ colour: (['R', 'G', 'B'] as const)[i]!, label: c.label, min: layer.ranges[i]![0], max: layer.ranges[i]![1] })) };
  }
  const [min, max] = layer.ranges[0]!;
  const unit = isIndexDisplay(layer.channels) ? 'index, unitless' : layer.display.mode === 'expression' ? 'expression of band values' : reflectance;
  const toHex = (c: readonly number[]) => `#${c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
  return { kind: 'ramp', label: layer.channels[0]!.label, unit, min, max, stops: rampStops(layer.display.ramp).map(([at, c]) => [at, toHex(c)]) };
}

/** Whether the map shows the online basemap: a visible layer whose tiles come from URLs. */
function onlineBasemapShown(): boolean {
  return !!currentMap()?.getLayers().getArray().some((l) => l.getVisible() && typeof (l as { getSource?: () => { getUrls?: unknown } | null }).getSource?.()?.getUrls === 'function');
}

/** The brief: the dialog's options, and the export (map drawn at print size, page laid out, printed by main). */
export const useBriefStore = defineStore('brief', () => {
  const preview = usePreviewStore();
  const aoi = useAoiStore();
  const session = useSessionStore();
  const opened = useBriefOpenStore();
  const options = reactive<BriefOptions>({ paper: 'a4', orientation: 'landscape', format: 'pdf', dpi: 150, title: '', text: '', chart: false });
  const step = ref<BriefStep>('idle');
  const error = ref<string | null>(null);
  const result = shallowRef<ResponseOf<'brief:export'> | null>(null);
  /** The scale bar's label on the last page printed ("2 km"). */
  const scaleLabel = ref('');
  let controller: AbortController | null = null;

  /** The layers the brief shows, top first: those drawn on the map, or the Library's selection (visible or not). */
  const shownLayers = (): PreviewLayer[] => {
    const chosen = opened.selection ? new Set(opened.selection.map((e) => e.id)) : null;
    return preview.layers.filter((l) => l.status === 'ready' && (chosen ? chosen.has(l.entryId) : l.visible));
  };

  /**
   * A brief of the Library's selection: its rasters are put on the map (those not there yet, without
   * moving the view, at the stack's top) and the brief waits until each is drawn or has failed.
   */
  async function prepareSelection(): Promise<void> {
    const chosen = opened.selection;
    if (!chosen) return;
    for (const e of chosen) if (!preview.layers.some((l) => l.entryId === e.id)) await preview.openOnMap(e.id, { zoom: false });
    const settled = () => chosen.every((e) => { const l = preview.layers.find((x) => x.entryId === e.id); return !l || l.status === 'ready' || l.status === 'error'; });
    if (settled()) return;
    await new Promise<void>((resolve) => {
      const stop = watch(() => preview.layers.map((l) => l.status), () => {
        if (!settled()) return;
        stop();
        resolve();
      });
    });
  }

  /**
   * For a selection's brief, the map as the page shows it while it is drawn: the selected rasters on,
   * every other raster off, the view over the selection's footprints. Returns what puts the map back.
   */
  function showSelection(map: NonNullable<ReturnType<typeof currentMap>>): () => void {
    const chosen = opened.selection;
    if (!chosen) return () => undefined;
    const ids = new Set(chosen.map((e) => e.id));
    const was = preview.layers.map((l) => [l.key, l.visible] as const);
    for (const l of preview.layers) if (l.visible !== ids.has(l.entryId)) preview.setVisible(l.key, ids.has(l.entryId));
    const view = map.getView();
    const [centre, resolution, rotation] = [view.getCenter(), view.getResolution(), view.getRotation()];
    const boxes = chosen.map((e) => e.bounds4326).filter((b): b is [number, number, number, number] => !!b);
    if (boxes.length) {
      const union = [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
      view.fit(transformExtent(union, 'EPSG:4326', view.getProjection()), { size: map.getSize(), padding: [16, 16, 16, 16] });
    }
    return () => {
      for (const [key, visible] of was) preview.setVisible(key, visible);
      view.setCenter(centre);
      view.setResolution(resolution);
      view.setRotation(rotation);
    };
  }

  /** What decides the page's layout as the dialog stands: the rasters and their legends, the chart, the notes, the title, the AOI. */
  function pageParts(): BriefParts {
    const rasters: BriefRaster[] = shownLayers().map((l) => ({ title: l.title, date: l.date, epsg: l.epsg, projectionName: l.projectionName, legend: layerLegend(l) }));
    return { rasters, series: options.chart ? opened.series : [], text: options.text, title: options.title.trim() || suggestTitle(), aoi: aoi.polygonal };
  }

  /** A title from what the map shows, for a dialog opened without one. */
  function suggestTitle(): string {
    const top = shownLayers()[0];
    const what = top ? (top.display.mode === 'rgb' ? 'Colour composite' : top.channels[0]?.label ?? top.title) : opened.selection ? 'Selected rasters' : null;
    if (!what) return 'Map brief';
    const dates = [...new Set((opened.selection ?? (top ? [top] : [])).map((e) => e.date).filter((d): d is string => !!d))].sort();
    return `${what}${dates.length ? `, ${dates.length > 1 ? `${dates[0]} to ${dates.at(-1)}` : dates[0]}` : ''}`;
  }

  async function exportBrief(): Promise<void> {
    controller?.abort();
    const ac = (controller = new AbortController());
    error.value = null;
    result.value = null;
    try {
      const map = currentMap();
      if (!map) throw new Error('The map is not there yet.');
      step.value = 'drawing';
      await prepareSelection();
      ac.signal.throwIfAborted();
      const layers = shownLayers();
      if (opened.selection && !layers.length) throw new Error('None of the selected rasters could be drawn on the map.');
      const sheet = briefSheetMm(options.paper, options.orientation);
      const parts = pageParts();
      const layout = briefLayout(sheet, parts);
      const px = mapPixels(layout, options.format === 'png' ? options.dpi : PDF_MAP_DPI);
      const restore = showSelection(map);
      let drawn: Awaited<ReturnType<typeof captureMap>>;
      let zoom: number;
      try {
        drawn = await captureMap(map, px.width, px.height);
        zoom = map.getView().getZoom() ?? 0;
      } finally {
        restore();
      }
      ac.signal.throwIfAborted();
      const polygon = aoi.polygonal;
      const rings = polygon ? (polygon.type === 'Polygon' ? polygon.coordinates : polygon.coordinates.flat()) as [number, number][][] : null;
      const title = parts.title;
      const page = briefPage({
        title,
        text: parts.text,
        map: drawn,
        rasters: parts.rasters,
        aoi: rings,
        aoiLabel: polygon ? `${aoi.label ?? 'AOI'}, ${formatKm2(areaKm2(polygon))}` : null,
        series: parts.series,
        sources: { service: layers.length ? session.serviceLabel || 'the imagery service' : undefined, basemap: true, water: zoom >= 6, places: zoom >= 8, online: onlineBasemapShown() ? '© OpenStreetMap contributors' : undefined },
        made: Date.now(),
      }, sheet);
      scaleLabel.value = page.scaleLabel;
      step.value = 'printing';
      const brief = {
        format: options.format, paper: options.paper, orientation: options.orientation,
        ...(options.format === 'png' ? { dpi: options.dpi } : {}),
        name: briefName(title, layers.map((l) => l.date).filter((d): d is string => !!d)),
        title, body: page.body, style: page.style,
      };
      const r = await ask((bridge) => bridge.briefExport(brief), { signal: ac.signal });
      if (ac.signal.aborted) return;
      if (!r.ok) throw new Error((r.error as IpcError).message);
      result.value = r.data;
      step.value = 'done';
    } catch (e) {
      if (ac.signal.aborted) return;
      error.value = e instanceof Error ? e.message : String(e);
      step.value = 'failed';
    }
  }

  function cancel(): void {
    controller?.abort();
    controller = null;
    step.value = 'idle';
  }

  return { options, step, error, result, scaleLabel, shownLayers, pageParts, prepareSelection, suggestTitle, exportBrief, cancel };
});
