/** The fields feature's public surface: what other features may use of it (the analysis chart shows a parcel's dates). */
export { parcelSeries, type FieldStatisticItem } from './model/fields';
export { useFieldsStore } from './stores/fields';
