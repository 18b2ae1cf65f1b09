import type { Pinia } from 'pinia';
import { computed, reactive, watch } from 'vue';
import { clearLayer, fitTo, onClick, select, setFeatures } from '../../../platform/map/vector-layers';
import { rampColor, rampCss } from '../../../platform/raster/color-ramps';
import { legendOf, type ColourBy, type FieldRow, type Legend, type ParcelItem } from '../model/fields';
import { useFieldsStore } from '../stores/fields';

/** The map layer of the selected set's parcels. */
export const PARCEL_LAYER = 'fields-parcels';
/** The colour of a parcel with no value (no valid date yet). */
export const NO_VALUE = '#94a3b8';

/** A value's colour in a legend as #rrggbb (null: no value). */
export function colourOf(v: number | null, legend: Legend | null): string | null {
  if (v === null || !legend) return null;
  const [r, g, b] = rampColor(legend.ramp, (v - legend.min) / (legend.max - legend.min));
  return `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

/** The legend's gradient (CSS). */
export const legendGradient = (legend: Legend): string => rampCss(legend.ramp);

/** Draws the parcels coloured by `legend` (grey where a parcel has no value); returns how many were drawn. */
export function drawParcels(parcels: readonly ParcelItem[], rows: readonly FieldRow[], legend: Legend | null): number {
  const byIndex = new Map(rows.map((r) => [r.index, r]));
  const items = parcels.map((p) => {
    const row = byIndex.get(p.index);
    const v = legend && row ? row[legend.by] : null;
    return { id: String(p.index), geometry: p.geometry4326, properties: { index: p.index, id: p.id, name: p.name }, color: colourOf(v, legend) ?? NO_VALUE };
  });
  return setFeatures(PARCEL_LAYER, items, { look: 'choropleth', zIndex: 30 }).drawn;
}

/** How the parcels are coloured: the panel's choice, which the layer follows. */
export const parcelLook = reactive({ by: 'value' as ColourBy });

/** The legend of the parcels as they are coloured now (null: no values yet). */
export const parcelLegend = (rows: readonly FieldRow[]): Legend | null => legendOf(rows, parcelLook.by);

/**
 * The fields' layer on the map, whatever panel is open: the selected set's parcels coloured by
 * {@link parcelLook} (grey without a value), the chart's parcel selected, a click on a parcel opens
 * its chart. Returns what removes it.
 */
export function installParcelLayer(pinia?: Pinia): () => void {
  const fields = useFieldsStore(pinia);
  const legend = computed(() => parcelLegend(fields.rows));
  const stops = [
    watch([() => fields.parcels, () => fields.rows, legend], () => {
      if (fields.parcels.length) drawParcels(fields.parcels, fields.rows, legend.value);
      else clearParcels();
    }, { immediate: true }),
    watch(() => fields.chart?.parcelIndex ?? null, (i) => selectParcel(i), { immediate: true }),
    onParcelClick((i) => void fields.openParcel(i)),
  ];
  return () => {
    for (const stop of stops) stop();
    clearParcels();
  };
}

/** Fits the map to the drawn parcels. */
export const fitParcels = (): Promise<void> => fitTo(PARCEL_LAYER, undefined, { maxZoom: 16 });

/** Marks one parcel as selected on the map (null: none). */
export const selectParcel = (index: number | null): void => select(PARCEL_LAYER, index === null ? null : String(index));

/** Calls `cb` with a parcel's index when the analyst clicks it on the map; returns what stops it. */
export const onParcelClick = (cb: (index: number) => void): (() => void) => onClick(PARCEL_LAYER, (_id, props) => cb(props.index as number));

/** Removes the parcels from the map. */
export const clearParcels = (): void => clearLayer(PARCEL_LAYER);
