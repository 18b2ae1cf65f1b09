/**
 * Time series and change layers over the library, computed from the files on disk in the analysis
 * worker threads: `series` (a band or index per date at a point or over an area), `change` (date B
 * minus date A on A's grid) and `saveChange` (a FLOAT32 GeoTIFF written by main/geotiff writePyramid
 * and recorded in the library).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { MultiPolygon, Polygon } from 'geojson';
import type { ResponseOf } from '../../preload/contract/index.js';
import { isAbortError, throwIfAborted } from '../../common/abort.js';
import { readGeoJson, readWkt } from '../../common/aoi-text.js';
import { AppError } from '../../common/errors.js';
import { gdalMetadataXml, writePyramid } from '../geotiff/index.js';
import { IdenticalRasters, type LibraryCatalog, type LibraryEntry } from '../library/index.js';
import { SkipError, type AreaItem, type ChangeGrid, type ChangeResult, type ChangeSummary, type PointItem } from './compute.js';
import { parseIndexExpression, unitOf, type IndexSpec } from './expression.js';
import type { AnalysisWorkers } from './pool.js';

/** An area as the contract carries it. */
export type AoiInput = { wkt: string } | { geojson: Record<string, unknown> };

/** Nodata of the saved change GeoTIFFs. */
export const CHANGE_NODATA = -9999;
/** Change results kept for saving (at most 25 M float32 pixels each). */
const KEEP_RESULTS = 2;

/** What the analysis service needs. */
export interface AnalysisDeps {
  library: LibraryCatalog;
  workers: AnalysisWorkers;
  /** The download folder; saved change layers go to its `analysis` subfolder. */
  downloadDir: () => string;
}

function specOf(expression: string): IndexSpec {
  const spec = parseIndexExpression(expression);
  if ('error' in spec) throw new AppError('validation', spec.error, { fields: { expression: [spec.error] } });
  return spec;
}

/** The polygonal AOI of a request, or a validation error naming the field. */
export function readAoiInput(aoi: AoiInput): Polygon | MultiPolygon {
  const g = 'wkt' in aoi ? readWkt(aoi.wkt) : readGeoJson(aoi.geojson);
  if (typeof g === 'string') throw new AppError('validation', `The area is not usable: ${g}`, { fields: { aoi: [g] } });
  return g;
}

function lonLatBounds(g: Polygon | MultiPolygon): [number, number, number, number] {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  for (const poly of polys) for (const ring of poly) for (const [x, y] of ring) {
    w = Math.min(w, x!); e = Math.max(e, x!); s = Math.min(s, y!); n = Math.max(n, y!);
  }
  return [w, s, e, n];
}

function overlaps(a: [number, number, number, number], b: [number, number, number, number]): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

const nameOf = (e: LibraryEntry) => path.basename(e.path);

/** The analysis operations behind the `analysis:*` channels. */
export class AnalysisService {
  private readonly results = new Map<string, { grid: ChangeGrid; label: string; from: LibraryEntry; to: LibraryEntry; expression: string }>();

  constructor(private readonly deps: AnalysisDeps) {}

  /** A band or index per date for every library raster covering a point or an area (or the given rasters). */
  async series(
    req: { expression: string; target: { kind: 'area'; aoi: AoiInput } | { kind: 'point'; lon: number; lat: number }; ids?: string[] },
    signal: AbortSignal,
  ): Promise<ResponseOf<'analysis:series'>> {
    const spec = specOf(req.expression);
    const target = req.target;
    const aoi = target.kind === 'area' ? readAoiInput(target.aoi) : null;
    const bounds: [number, number, number, number] = aoi ? lonLatBounds(aoi) : [target.kind === 'point' ? target.lon : 0, target.kind === 'point' ? target.lat : 0, target.kind === 'point' ? target.lon : 0, target.kind === 'point' ? target.lat : 0];
    // Without ids: the footprint index answers which rasters cover the target.
    const entries = req.ids ? req.ids.map((id) => this.entry(id)).filter((e) => e.bounds4326 && overlaps(e.bounds4326, bounds)) : this.deps.library.covering(bounds);
    const skipped: { id: string; name: string; reason: string }[] = [];
    // Oldest record first, so of identical rasters of a date (one request bought twice) the first is read and the rest named.
    const identical = new IdenticalRasters();
    const dated = [...entries].sort((a, b) => a.createdAt.localeCompare(b.createdAt)).filter((e) => {
      if (!e.date) {
        skipped.push({ id: e.id, name: nameOf(e), reason: 'has no image date' });
        return false;
      }
      const first = identical.firstOf(e);
      if (first === null) return true;
      skipped.push({ id: e.id, name: nameOf(e), reason: `is identical to ${first} (the same request of the same date, or the same content)` });
      return false;
    });
    const outcomes = await Promise.allSettled(dated.map((e) =>
      aoi
        ? this.deps.workers.run<AreaItem>({ op: 'area', file: e.path, spec, aoi }, signal)
        : this.deps.workers.run<PointItem>({ op: 'point', file: e.path, spec, point: [(target as { lon: number }).lon, (target as { lat: number }).lat] }, signal),
    ));
    throwIfAborted(signal);
    const points: ResponseOf<'analysis:series'>['points'] = [];
    for (let i = 0; i < dated.length; i++) {
      const e = dated[i]!;
      const o = outcomes[i]!;
      if (o.status === 'rejected') {
        if (isAbortError(o.reason)) throwIfAborted(signal);
        const message = (o.reason as Error).message;
        skipped.push({ id: e.id, name: nameOf(e), reason: o.reason instanceof SkipError ? message : `could not be read: ${message}` });
        continue;
      }
      const base = { id: e.id, name: nameOf(e), date: e.date!, epsg: e.epsg ?? 0 };
      const r = o.value;
      if (r.kind === 'area') {
        const s = r.stats;
        points.push({ ...base, pixels: r.pixels, valid: s?.count ?? 0, mean: s?.mean ?? null, median: s?.median ?? null, p10: s?.p10 ?? null, p90: s?.p90 ?? null });
      } else {
        points.push({
          ...base, valid: r.value === null ? 0 : 1, mean: r.value, median: r.value, p10: r.value, p90: r.value,
          value: r.value, pixel: { col: r.col, row: r.row, x: r.centre[0], y: r.centre[1] },
        });
      }
    }
    points.sort((a, b) => a.date.localeCompare(b.date) || a.name.localeCompare(b.name));
    return { kind: target.kind, expression: req.expression, label: spec.label, unit: unitOf(spec), points, skipped };
  }

  /** `expression` at `toId` minus at `fromId`, on the first raster's grid (nearest-neighbour sampling of the second). */
  async change(req: { expression: string; fromId: string; toId: string; aoi?: AoiInput }, signal: AbortSignal) {
    const spec = specOf(req.expression);
    const from = this.entry(req.fromId);
    const to = this.entry(req.toId);
    const aoi = req.aoi ? readAoiInput(req.aoi) : null;
    let grid: ChangeGrid;
    let summary: ChangeSummary;
    try {
      ({ grid, summary } = await this.deps.workers.run<ChangeResult>({ op: 'change', fileA: from.path, fileB: to.path, spec, aoi }, signal));
    } catch (e) {
      if (e instanceof SkipError) throw new AppError('validation', `No change layer: ${e.message}.`);
      throw e;
    }
    const id = randomUUID();
    const label = `${spec.label} change ${from.date ?? nameOf(from)} → ${to.date ?? nameOf(to)}`;
    this.results.set(id, { grid, label, from, to, expression: req.expression });
    while (this.results.size > KEEP_RESULTS) this.results.delete(this.results.keys().next().value!);
    return {
      id, label, fromDate: from.date, toDate: to.date,
      grid: { epsg: grid.epsg, originX: grid.originX, originY: grid.originY, pixelSize: grid.pixelSize, width: grid.width, height: grid.height },
      resampling: 'nearest' as const,
      ...summary,
    };
  }

  /** Writes a computed change layer as a FLOAT32 GeoTIFF (nodata -9999) under `<download folder>/analysis` and records it in the library. */
  async saveChange(id: string, signal: AbortSignal): Promise<{ file: string; entryId: string }> {
    const r = this.results.get(id);
    if (!r) throw new AppError('not-found', 'That change layer is no longer in memory; compute it again.');
    const { grid } = r;
    const dir = path.join(this.deps.downloadDir(), 'analysis');
    await mkdir(dir, { recursive: true });
    const stem = `change-${r.expression.replace(/[^A-Za-z0-9]+/g, '')}-${(r.from.date ?? 'a').replace(/-/g, '')}-${(r.to.date ?? 'b').replace(/-/g, '')}`;
    let file = path.join(dir, `${stem}.tif`);
    for (let k = 2; existsSync(file); k++) file = path.join(dir, `${stem}-${k}.tif`);
    const metadataXml = gdalMetadataXml([
      { name: 'IMAGE_DATE', value: (r.to.date ?? '').replace(/-/g, ''), sample: null, role: null },
      { name: 'CHANGE_EXPRESSION', value: r.expression, sample: null, role: null },
      { name: 'CHANGE_FROM', value: `${r.from.date ?? ''} ${nameOf(r.from)}`, sample: null, role: null },
      { name: 'CHANGE_TO', value: `${r.to.date ?? ''} ${nameOf(r.to)}`, sample: null, role: null },
      { name: 'CHANGE_RESAMPLING', value: 'nearest, onto the first raster grid', sample: null, role: null },
      { name: 'DESCRIPTION', value: r.label.replace('→', 'to'), sample: 0, role: 'description' },
    ]);
    const values = grid.values;
    await writePyramid(
      file,
      {
        width: grid.width, height: grid.height, bands: 1, dataType: 'FLOAT32', nodata: CHANGE_NODATA, metadataXml,
        geo: { epsg: grid.epsg, geographic: grid.geographic, originX: grid.originX, originY: grid.originY, pixelSize: grid.pixelSize },
      },
      async (rect, out) => {
        for (let y = 0; y < rect.height; y++) {
          const src = (rect.y + y) * grid.width + rect.x;
          for (let x = 0; x < rect.width; x++) {
            const v = values[src + x]!;
            out[y * rect.width + x] = Number.isFinite(v) ? v : CHANGE_NODATA;
          }
        }
      },
      // Every pixel is written above (nodata where the change is not finite), so `out` is not pre-filled.
      { signal, fullSources: true },
    );
    const entry = await this.deps.library.importFile(file, signal);
    return { file, entryId: entry.id };
  }

  private entry(id: string): LibraryEntry {
    const e = this.deps.library.get(id);
    if (!e) throw new AppError('not-found', `No library raster ${id}.`);
    return e;
  }
}

