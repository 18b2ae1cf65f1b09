import { randomUUID } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import proj4 from 'proj4';
import { AppError } from '../../common/errors.js';
import { namePart, writeNumberedFile } from '../shared/files.js';
import type { Emit } from '../platform/emit';
import { writeLongCsv } from './export/csv.js';
import { writeGeoPackage } from './export/gpkg.js';
import type { ExportSource } from './export/rows.js';
import type { FieldMonitor } from './monitor.js';
import type { Bbox, InspectedLayer, Parcel, ParcelGeometry, ParcelSet, ParcelsPort, PixelRule, Position, StatisticsPort } from './ports';

/** What the fields service needs from the app. */
export interface FieldsDeps {
  parcels: ParcelsPort;
  statistics: StatisticsPort;
  monitor: FieldMonitor;
  /** Drops the statistics and coverage of deleted sets (after the parcel store deleted one). */
  forgetResults: () => void;
  emit: Emit;
  /** The effective download folder: exports go to its `exports/`, and a host without a dialog may name files under it. */
  downloadDir: () => string;
  /** The host's "open file" dialog for parcel files; absent (browser host): `fields:inspect` takes a file in the download folder. */
  chooseParcelFile?: () => Promise<string | null>;
  /** A library raster's name for the exports (its file name). */
  rasterName: (rasterId: string) => string | null;
  /** The time for export names (the app's clock). */
  now: () => number;
}

/** Files inspected and not yet imported that main remembers (the renderer names them by handle). */
const MAX_HANDLES = 64;
/** The least time between two progress events of one call. */
const PROGRESS_EVERY_MS = 100;

/** The extensions of the parcel files main reads. */
export const PARCEL_EXTENSIONS = ['gpkg', 'shp', 'geojson', 'json', 'fgb'];

const field = (name: string, reason: string): AppError => new AppError('validation', `${name}: ${reason}`, { fields: { [name]: [reason] } });

/** YYYYMMDD-HHMMSS (UTC). */
const stamp = (ms: number): string => new Date(ms).toISOString().replace(/[-:]/g, '').replace('T', '-').replace(/\.\d+Z$/, '');

/** Reprojects a geometry's positions with `to` (a proj4 converter), into a new geometry. */
function reproject(g: ParcelGeometry, to: (p: Position) => Position): ParcelGeometry {
  const ring = (r: Position[]): Position[] => r.map(to);
  return g.type === 'Polygon' ? { type: 'Polygon', coordinates: g.coordinates.map(ring) } : { type: 'MultiPolygon', coordinates: g.coordinates.map((p) => p.map(ring)) };
}

/**
 * The fields feature in main: files chosen through main's dialog, imports and runs with progress
 * and cancel, the parcels for the map (in EPSG:4326), the stored statistics, the exports and the
 * watch attachments. The parcel store and the statistics engine do the work; this glue adds the
 * rules of the channels (handles, bounds, names) and nothing else.
 */
export class FieldsService {
  private readonly handles = new Map<string, string>();
  private readonly converters = new Map<string, (p: Position) => Position>();

  constructor(private readonly deps: FieldsDeps) {}

  /** Lists the layers of a file the host's dialog chose, or of `file` when it is inside the download folder. */
  async inspect(file: string | undefined, signal: AbortSignal): Promise<{ cancelled: boolean; fileId: string | null; fileName: string | null; format: ParcelSet['format'] | null; layers: InspectedLayer[] }> {
    const chosen = file === undefined ? await this.choose() : await this.insideDownloads(file);
    if (chosen === null) return { cancelled: true, fileId: null, fileName: null, format: null, layers: [] };
    const ext = path.extname(chosen).slice(1).toLowerCase();
    if (!PARCEL_EXTENSIONS.includes(ext)) throw field('file', `${path.basename(chosen)} is not a parcel file: choose a GeoPackage (.gpkg), Shapefile (.shp), GeoJSON (.geojson) or FlatGeobuf (.fgb).`);
    const inspected = await this.deps.parcels.inspect(chosen, signal);
    const fileId = randomUUID();
    this.handles.set(fileId, chosen);
    // The oldest handle goes first: a page cannot make main remember files without limit.
    while (this.handles.size > MAX_HANDLES) this.handles.delete(this.handles.keys().next().value!);
    return { cancelled: false, fileId, fileName: path.basename(chosen), format: inspected.format, layers: inspected.layers };
  }

  private async choose(): Promise<string | null> {
    if (!this.deps.chooseParcelFile) throw field('file', 'This window has no file dialog: name a file inside the download folder.');
    return this.deps.chooseParcelFile();
  }

  /** `file`'s real path when it is a file inside the download folder (links resolved), else a refusal naming the field. */
  private async insideDownloads(file: string): Promise<string> {
    if (this.deps.chooseParcelFile) throw field('file', 'Choose the file in the dialog.');
    if (!path.isAbsolute(file)) throw field('file', 'The path must be absolute.');
    const root = await realpath(this.deps.downloadDir()).catch(() => null);
    const real = await realpath(file).catch(() => null);
    if (root === null || real === null) throw field('file', `${path.basename(file)} does not exist.`);
    const rel = path.relative(root, real);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw field('file', 'Only files inside the download folder can be named; choose others in the app\'s dialog.');
    if (!(await stat(real)).isFile()) throw field('file', `${path.basename(file)} is not a file.`);
    return real;
  }

  /** Imports an inspected file; throttled `fields:progress` events under `progressKey`. */
  async import(req: { fileId: string; layer?: string; idColumn: string; nameColumn?: string; name?: string; progressKey?: string }, signal: AbortSignal) {
    const file = this.handles.get(req.fileId);
    if (!file) throw field('fileId', 'Unknown file: inspect it again.');
    const onProgress = this.progress('import', req.progressKey);
    const out = await this.deps.parcels.import(file, { layer: req.layer, idColumn: req.idColumn, nameColumn: req.nameColumn, name: req.name }, {
      signal, onProgress: (done, total) => onProgress(done, total, null),
    });
    this.handles.delete(req.fileId);
    this.deps.emit('fields:changed', { setId: out.set.id });
    return out;
  }

  /** A progress callback that emits at most one event per {@link PROGRESS_EVERY_MS}, and always the last. */
  private progress(operation: 'import' | 'run', key: string | undefined): (done: number, total: number, etaMs: number | null) => void {
    let last = 0;
    return (done, total, etaMs) => {
      if (key === undefined) return;
      const t = performance.now();
      if (done < total && t - last < PROGRESS_EVERY_MS) return;
      last = t;
      this.deps.emit('fields:progress', { key, operation, done, total, etaMs });
    };
  }

  sets(): ParcelSet[] {
    return this.deps.parcels.sets();
  }

  /** The set, or a not-found error naming the field. */
  need(setId: string): ParcelSet {
    const set = this.deps.parcels.set(setId);
    if (!set) throw new AppError('not-found', `setId: no parcel set ${setId}.`, { fields: { setId: ['No such parcel set.'] } });
    return set;
  }

  delete(setId: string): boolean {
    this.need(setId);
    this.deps.monitor.detachAll(setId);
    const deleted = this.deps.parcels.delete(setId);
    this.deps.forgetResults();
    this.deps.emit('fields:changed', { setId });
    return deleted;
  }

  /** A page of parcels with their geometry in EPSG:4326 (the map's). */
  parcels(setId: string, query: { offset?: number; limit?: number; bbox4326?: Bbox }): (Omit<Parcel, 'geometry'> & { geometry4326: ParcelGeometry })[] {
    const set = this.need(setId);
    const to = this.to4326(set);
    return this.deps.parcels.parcels(setId, { limit: 1_000, ...query }).map(({ geometry, ...p }) => ({ ...p, geometry4326: to ? reproject(geometry, to) : geometry }));
  }

  /** The set's CRS to EPSG:4326 (null: it is EPSG:4326). */
  private to4326(set: ParcelSet): ((p: Position) => Position) | null {
    if (set.crs.epsg === 4326) return null;
    let to = this.converters.get(set.crs.proj4);
    if (!to) {
      const converter = proj4(set.crs.proj4, 'EPSG:4326');
      to = (p: Position): Position => converter.forward(p) as Position;
      this.converters.set(set.crs.proj4, to);
    }
    return to;
  }

  /** Computes a set's statistics; `fields:progress` events carry the ETA. */
  async run(req: { setId: string; index: string; rule?: PixelRule; rasterIds?: string[]; minValidShare?: number; progressKey?: string }, signal: AbortSignal) {
    this.need(req.setId);
    const onProgress = this.progress('run', req.progressKey);
    const { progressKey: _key, ...request } = req;
    const out = await this.deps.statistics.run(request, { signal, onProgress: (p) => onProgress(p.done, p.total, p.etaMs) });
    this.deps.emit('fields:changed', { setId: req.setId });
    return out;
  }

  results(req: { setId: string; index: string; rule?: PixelRule; parcelIndex?: number; date?: string; offset?: number; limit?: number }) {
    this.need(req.setId);
    const { setId, ...query } = req;
    return this.deps.statistics.results(setId, { limit: 1_000, ...query });
  }

  /** The latest valid values of a page of the set's parcels (by index, the first 20,000 by default). */
  latest(req: { setId: string; index: string; rule?: PixelRule; date?: string; offset?: number; limit?: number }, signal?: AbortSignal) {
    this.need(req.setId);
    const { setId, ...query } = req;
    return this.deps.statistics.latest(setId, query, signal);
  }

  /** Writes the long CSV or the GeoPackage of a set's statistics of one index and rule into `<download folder>/exports/`. */
  async export(req: { setId: string; index: string; rule?: PixelRule; format: 'csv' | 'gpkg' }, signal: AbortSignal): Promise<{ file: string; rows: number }> {
    const set = this.need(req.setId);
    const rule = req.rule ?? 'exact';
    const source: ExportSource = {
      set,
      parcels: () => this.deps.parcels.eachParcel(set.id, 1_000),
      results: (after, limit) => this.deps.statistics.results(set.id, { index: req.index, rule, after: after ?? undefined, limit }),
      rasterName: (id) => this.deps.rasterName(id) ?? id,
    };
    const base = `fields-${namePart(set.name, 'parcels')}-${namePart(req.index, 'index')}-${rule}-${stamp(this.deps.now())}`;
    const dir = path.join(this.deps.downloadDir(), 'exports');
    let rows = 0;
    const file = await writeNumberedFile(path.join(dir, `${base}.${req.format}`), async (part) => {
      rows = req.format === 'csv' ? await writeLongCsv(part, source, signal) : (await writeGeoPackage(part, source, signal)).statistics;
    });
    return { file, rows };
  }
}
