/**
 * What every reader of a parcel file gives the import: its layers (name, feature count, columns with
 * their types for the id/name picker, CRS), and a layer's features in file order, each with the
 * values of the chosen id and name columns and its geometry in GeoJSON's shape, untrusted until
 * main/fields/geometry.ts `checkGeometry` passed it.
 */
import type { ParcelCrs } from '../geometry.js';

export type ParcelFormat = 'gpkg' | 'shp' | 'geojson' | 'fgb';

export interface SourceColumn { name: string; type: string }

export interface SourceLayer {
  name: string;
  count: number;
  columns: SourceColumn[];
  /** Null when the file declares none Swath can use; `crsProblem` says what is missing. */
  crs: ParcelCrs | null;
  crsProblem?: string;
}

/** One feature: its 1-based place in the layer, the chosen columns' values, its geometry (or why none could be read). */
export interface SourceFeature {
  row: number;
  id: unknown;
  name: unknown;
  geometry: unknown;
  /** Set when the reader could not decode the feature's geometry (the skip reason). */
  unreadable?: string;
}

export interface Source {
  format: ParcelFormat;
  layers(): SourceLayer[];
  /** The layer's features (`layer` null: the only one). The columns are checked to exist first. */
  features(layer: SourceLayer, columns: { id: string; name: string | null }): Iterable<SourceFeature> | AsyncIterable<SourceFeature>;
  close(): void;
}

/** A JSON-ish column type of a value (GeoJSON properties, FlatGeobuf has its own). */
export function valueType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'real';
  if (typeof v === 'string') return 'text';
  if (typeof v === 'boolean') return 'boolean';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}
