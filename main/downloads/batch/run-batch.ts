/**
 * Runs planned batches: downloads every part with bounded parallelism and overall progress, then
 * mosaics the parts into one GeoTIFF or, when they cannot share one grid, keeps them with a VRT.
 *
 * It knows nothing of the persisted queue: a queue job calls {@link runBatch} with its own
 * downloader and signal. Parts land in `<name>_parts/` under stable names beside a manifest of the
 * plan, so when a job is retried or resumed after a crash, finished parts are reused and only the
 * missing ones are fetched again.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isAbortError, throwIfAborted } from '../../../common/abort.js';
import { readJsonFile, removeStaleTempFiles, syncDirectory, writeJsonAtomic } from '../../shared/files.js';
import { pathExists } from '../../shared/file-io.js';
import { AppError } from '../../../common/errors.js';
import { publishPartFile } from '../stream-to-file.js';
import { describedStem } from '../file-name.js';
import { mapLimit } from '../../../common/map-limit.js';
import { mosaicBlocker, mosaicParts } from './mosaic.js';
import type { BatchPart, BatchPlan, CompositeBody } from '../../batch-plan/plan.js';
import { readPartRaster, type PartRaster } from './raster-info.js';
import { writeVrt } from './vrt.js';

/** Downloads a composite body to exactly `targetFile`, which appears only when complete (`.part` + rename), reporting bytes and the total when known. */
export type DownloadPart = (
  body: CompositeBody,
  targetFile: string,
  signal: AbortSignal,
  onProgress: (bytes: number, total: number | null) => void,
) => Promise<void>;

/** What the runner needs from its host. */
export interface RunBatchDeps {
  downloadPart: DownloadPart;
  /** Part downloads in flight at once (the account's concurrency limit is a good value). */
  parallelism: number;
}

/** Overall progress of a batch (or of all batches of a time series). */
export interface BatchProgress {
  /** download: parts are still being fetched; assemble: only mosaics/VRTs remain; done: finished. */
  phase: 'download' | 'assemble' | 'done';
  partsDone: number;
  partsTotal: number;
  /** Bytes received so far over all parts (finished parts count fully). */
  bytes: number;
  /** Sum of all parts' sizes once every part has announced one, otherwise null. */
  totalBytes: number | null;
  /** Whole job, 0..1: downloads weigh 90 % of a split batch and assembling the rest. */
  fraction: number;
}

/** What a finished batch left on disk. */
export interface BatchResult {
  /** single: one direct download; mosaic: parts merged into one GeoTIFF; vrt: parts kept plus a VRT. */
  kind: 'single' | 'mosaic' | 'vrt';
  /** The file to open: the GeoTIFF or the VRT. */
  file: string;
  /** Part files kept on disk (only for vrt). */
  parts: string[];
  /** Helper VRTs that reproject parts in another CRS (only for vrt). */
  warped: string[];
  /** Why the parts were not mosaicked (only for vrt). */
  reason: string | null;
}

/** Options of {@link runBatch}. */
export interface RunBatchOptions {
  /** Base file name without extension; default derived from the request (see {@link defaultBatchName}). */
  name?: string;
  /** Keep the part files after a successful mosaic. Default false. */
  keepParts?: boolean;
  /** Pixel bytes the mosaic handles per step; bounds its memory. */
  chunkBytes?: number;
}

/** A part download failed; carries the failure's kind so the queue's retry rules still apply. */
export class BatchPartError extends AppError {
  declare readonly retryAfterMs: number | undefined;

  /** Wraps the failure of part `part` (0-based); it takes the part's kind (transient when it had none) and Retry-After. */
  constructor(
    readonly part: number,
    readonly partsTotal: number,
    cause: unknown,
  ) {
    const c = (cause ?? {}) as { kind?: unknown; retryAfterMs?: unknown };
    super(typeof c.kind === 'string' ? c.kind : 'transient', `Part ${part + 1} of ${partsTotal} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
      retryAfterMs: typeof c.retryAfterMs === 'number' ? c.retryAfterMs : undefined,
    });
    this.name = 'BatchPartError';
  }
}

const MANIFEST = 'batch.json';
/** The version of {@link MANIFEST} this code writes and reads. */
const MANIFEST_VERSION = 1;
const PART_FILE = /^part-\d+\.(tif|warped\.vrt)$/;

function safeName(s: string): string {
  const clean = s.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 120);
  return clean === '' ? 'composite' : clean;
}

/** The download naming, composite_<YYYYMMDD>_<product>_<Model>_<EPSG>_<Res>m, from what the request says. */
export function defaultBatchName(plan: BatchPlan): string {
  const r = plan.request;
  return safeName(describedStem({ kind: 'composite', date: r.Date, bandnames: r.Bandnames, model: r.Model, epsg: plan.epsg, resolution: r.Resolution }));
}

/** `<base><ext>`, or `<base> (n)<ext>` with the first free n. */
async function freeName(dir: string, base: string, ext: string): Promise<string> {
  for (let n = 0; ; n++) {
    const p = path.join(dir, n === 0 ? `${base}${ext}` : `${base} (${n})${ext}`);
    if (!(await pathExists(p))) return p;
  }
}

function fingerprint(plan: BatchPlan): string {
  return createHash('sha256').update(JSON.stringify(plan.parts.map((p) => p.body))).digest('hex');
}

interface Unit {
  plan: BatchPlan;
  name: string;
  partsDir: string;
  files: string[];
  /** Per part: bytes so far, announced total, finished. */
  state: { bytes: number; total: number | null; done: boolean }[];
  /** Fraction of the mosaic written. */
  assembled: number;
  assembling: boolean;
  finished: boolean;
  result?: BatchResult;
}

/** Prepares a unit's working folder: stray `.part` files go, parts of a different plan go, finished parts of this plan are reused. */
async function prepareUnit(unit: Unit, signal: AbortSignal): Promise<void> {
  if (unit.plan.kind === 'single') return;
  await mkdir(unit.partsDir, { recursive: true });
  // A crash mid-transfer or mid-mosaic leaves `.part` files; nothing else in this folder carries that suffix.
  for (const f of await readdir(unit.partsDir)) if (f.endsWith('.part')) await unlink(path.join(unit.partsDir, f));
  const manifestPath = path.join(unit.partsDir, MANIFEST);
  await removeStaleTempFiles(manifestPath);
  const fp = fingerprint(unit.plan);
  let previous: unknown = null;
  try {
    previous = await readJsonFile(manifestPath, signal, MANIFEST_VERSION);
  } catch (e) {
    // Unreadable, not JSON or another version: as good as none (the parts are planned anew).
    if (isAbortError(e)) throw e;
  }
  if ((previous as { fingerprint?: unknown } | null)?.fingerprint !== fp) {
    // The folder name carries a short fingerprint; the full one guards against the rare clash.
    for (const f of await readdir(unit.partsDir)) if (PART_FILE.test(f)) await unlink(path.join(unit.partsDir, f));
    const manifest = { version: MANIFEST_VERSION, fingerprint: fp, parts: unit.files.map((f) => path.basename(f)) };
    await writeJsonAtomic(manifestPath, manifest);
    return;
  }
  // Same plan as before: a part file that exists was published atomically, but check it still reads.
  await Promise.all(
    unit.files.map(async (f, i) => {
      if (!(await pathExists(f))) return;
      try {
        await readPartRaster(f, signal);
        const size = (await stat(f)).size;
        unit.state[i] = { bytes: size, total: size, done: true };
      } catch (e) {
        if (isAbortError(e)) throw e;
        await unlink(f).catch(() => undefined);
      }
    }),
  );
}

/** Gives the working folder its user-facing name `<name>_parts` (or `<name>_parts (n)`) once its parts are to be kept. */
async function keepPartsFolder(unit: Unit, targetDir: string): Promise<string> {
  const kept = await freeName(targetDir, `${unit.name}_parts`, '');
  // A folder of finished, fsynced parts renamed (not a write: nothing in it changes), the folder fsynced after.
  await rename(unit.partsDir, kept);
  await syncDirectory(targetDir);
  await unlink(path.join(kept, MANIFEST)).catch(() => undefined);
  return kept;
}

async function assemble(unit: Unit, targetDir: string, options: RunBatchOptions, signal: AbortSignal, tick: () => void): Promise<BatchResult> {
  const rasters: PartRaster[] = [];
  for (const f of unit.files) rasters.push(await readPartRaster(f, signal));
  const sources = unit.plan.parts.map((p: BatchPart, i) => ({ raster: rasters[i]!, bandIndices: p.bandIndices }));
  const reason = mosaicBlocker(sources);
  if (reason === null) {
    const tmp = path.join(unit.partsDir, `${unit.name}.mosaic.tif`);
    await mosaicParts(sources, tmp, {
      signal,
      chunkBytes: options.chunkBytes,
      onProgress: (f) => {
        unit.assembled = f;
        tick();
      },
    });
    const file = await publishPartFile(tmp, path.join(targetDir, `${unit.name}.tif`), signal);
    if (!options.keepParts) {
      await rm(unit.partsDir, { recursive: true, force: true });
      return { kind: 'mosaic', file, parts: [], warped: [], reason: null };
    }
    const kept = await keepPartsFolder(unit, targetDir);
    return { kind: 'mosaic', file, parts: unit.files.map((f) => path.join(kept, path.basename(f))), warped: [], reason: null };
  }
  // The VRT refers to the parts by relative path, so they move to their final folder first.
  const kept = await keepPartsFolder(unit, targetDir);
  const moved = sources.map((s) => ({ ...s, raster: { ...s.raster, file: path.join(kept, path.basename(s.raster.file)) } }));
  const vrtPath = await freeName(targetDir, unit.name, '.vrt');
  const vrt = await writeVrt(moved, vrtPath, { signal });
  return { kind: 'vrt', file: vrt.path, parts: moved.map((s) => s.raster.file), warped: vrt.warped, reason };
}

/** The working folder a plan's parts are downloaded to (stable for the same plan, so a retried job resumes). */
export function batchWorkDir(plan: BatchPlan, targetDir: string, name?: string): string {
  return path.join(targetDir, `${safeName(name ?? defaultBatchName(plan))}_parts_${fingerprint(plan).slice(0, 8)}`);
}

// Each batch is assembled as soon as its last part arrives, so one batch's mosaic overlaps the next one's
// downloads; on abort, in-flight downloads are cancelled and finished parts stay for a later resume.
/** Runs several planned batches as one job sharing one pool of downloads and one progress, results in input order. */
export async function runBatches(
  batches: readonly { plan: BatchPlan; name?: string }[],
  deps: RunBatchDeps,
  targetDir: string,
  signal: AbortSignal,
  onProgress: (p: BatchProgress) => void,
  options: RunBatchOptions = {},
): Promise<BatchResult[]> {
  throwIfAborted(signal);
  await mkdir(targetDir, { recursive: true });
  const units: Unit[] = [];
  const taken = new Set<string>();
  for (const b of batches) {
    let name = safeName(b.name ?? defaultBatchName(b.plan));
    for (let n = 1; taken.has(name); n++) name = `${safeName(b.name ?? defaultBatchName(b.plan))}_${n}`;
    taken.add(name);
    const partsDir = batchWorkDir(b.plan, targetDir, name);
    const width = String(b.plan.parts.length).length;
    units.push({
      plan: b.plan,
      name,
      partsDir,
      files: b.plan.parts.map((p) => path.join(partsDir, `part-${String(p.index + 1).padStart(Math.max(3, width), '0')}.tif`)),
      state: b.plan.parts.map(() => ({ bytes: 0, total: null, done: false })),
      assembled: 0,
      assembling: false,
      finished: false,
    });
  }
  for (const u of units) await prepareUnit(u, signal);

  const partsTotal = units.reduce((s, u) => s + u.plan.parts.length, 0);
  const report = (): void => {
    let bytes = 0;
    let totalKnown = true;
    let totalBytes = 0;
    let partsDone = 0;
    let weighted = 0;
    for (const u of units) {
      let dl = 0;
      for (const s of u.state) {
        bytes += s.bytes;
        if (s.total === null) totalKnown = false;
        else totalBytes += s.total;
        if (s.done) partsDone++;
        dl += s.done ? 1 : s.total ? Math.min(1, s.bytes / s.total) : 0;
      }
      const n = u.state.length;
      const f = u.finished ? 1 : u.plan.kind === 'single' ? dl / n : 0.9 * (dl / n) + 0.1 * u.assembled;
      weighted += f * n;
    }
    const finished = units.every((u) => u.finished);
    onProgress({
      phase: finished ? 'done' : partsDone === partsTotal ? 'assemble' : 'download',
      partsDone,
      partsTotal,
      bytes,
      totalBytes: totalKnown ? totalBytes : null,
      fraction: partsTotal === 0 ? 1 : Math.min(1, weighted / partsTotal),
    });
  };
  report();

  const tasks: { unit: Unit; part: number }[] = [];
  for (const u of units) u.plan.parts.forEach((_, i) => tasks.push({ unit: u, part: i }));

  const finish = async (u: Unit, inner: AbortSignal): Promise<void> => {
    if (u.plan.kind === 'single') {
      u.result = { kind: 'single', file: u.files[0]!, parts: [], warped: [], reason: null };
    } else {
      u.result = await assemble(u, targetDir, options, inner, report);
    }
    u.finished = true;
    report();
  };

  await mapLimit(tasks, deps.parallelism, signal, async ({ unit: u, part }, _i, inner) => {
    const st = u.state[part]!;
    if (!st.done) {
      let target = u.files[part]!;
      if (u.plan.kind === 'single') {
        target = await freeName(targetDir, u.name, '.tif');
        u.files[part] = target;
      }
      try {
        await deps.downloadPart(u.plan.parts[part]!.body, target, inner, (bytes, total) => {
          st.bytes = bytes;
          st.total = total;
          report();
        });
        if (!(await pathExists(target))) throw new Error(`the downloader reported success but ${target} does not exist`);
      } catch (e) {
        if (isAbortError(e) || inner.aborted) throw e;
        throw new BatchPartError(u.plan.parts[part]!.index, u.plan.parts.length, e);
      }
      const size = (await stat(target)).size;
      st.bytes = size;
      st.total = size;
      st.done = true;
      report();
    }
    // The task that completes a batch's last part assembles it, so one batch's mosaic overlaps the next batch's downloads.
    if (!u.assembling && u.state.every((s) => s.done)) {
      u.assembling = true;
      await finish(u, inner);
    }
  });
  // Batches whose parts were all reused from an earlier run had no task reach the check above.
  for (const u of units) if (!u.assembling) await finish(u, signal);
  return units.map((u) => u.result!);
}

/** Downloads a plan's parts into `targetDir` and mosaics them into `<name>.tif`, or keeps them with `<name>.vrt` when they cannot share a grid. */
export async function runBatch(
  plan: BatchPlan,
  deps: RunBatchDeps,
  targetDir: string,
  signal: AbortSignal,
  onProgress: (p: BatchProgress) => void,
  options: RunBatchOptions = {},
): Promise<BatchResult> {
  const [result] = await runBatches([{ plan, name: options.name }], deps, targetDir, signal, onProgress, options);
  return result!;
}
