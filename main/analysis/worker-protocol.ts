/** Messages between main and the analysis worker threads. */
import type { MultiPolygon, Polygon } from 'geojson';
import type { IndexSpec } from './expression.js';

/** One file's work: an area's statistics, a point's value, or a change grid of two files. */
export type WorkerTask =
  | { op: 'area'; file: string; spec: IndexSpec; aoi: Polygon | MultiPolygon }
  | { op: 'point'; file: string; spec: IndexSpec; point: [number, number] }
  | { op: 'change'; fileA: string; fileB: string; spec: IndexSpec; aoi: Polygon | MultiPolygon | null };

