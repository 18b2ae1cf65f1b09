import { stat } from 'node:fs/promises';
import path from 'node:path';
import { planComposite, withDate, type BatchPlan, type CompositeBody } from '../batch-plan/index.js';
import { defaultBatchName, runBatch, runBatches, type BatchResult, type RunBatchDeps } from './batch/index.js';
import { downloadToFile } from './stream-to-file.js';
import { DownloadError, errorKind, errorMessage, serviceDidNothing, type BatchJobRunner, type BatchOutput, type BinarySource } from './types.js';

/**
 * Runs the queue's batch jobs: re-plans the request against the limits stored
 * with the job (deterministic, so a restarted job reuses the parts it has),
 * downloads the parts through the same source as single downloads, and
 * mosaics them (or writes a VRT). Time series run one plan per date.
 */

/** Options of {@link createBatchRunner}. */
export interface BatchRunnerOptions {
  /** Parts in flight at once: the account's concurrency. */
  parallelism: () => number;
  stallTimeoutMs?: number;
  /** Whether a library entry already has this file name: a batch's mosaic (or VRT) then takes `<name>_1`, `<name>_2`, … */
  nameTaken?: (fileName: string) => boolean;
}

/** Builds the runner the download queue calls for jobs that carry a batch spec. */
export function createBatchRunner(source: BinarySource, options: BatchRunnerOptions): BatchJobRunner {
  /**
   * One attempt's part downloads, sent under the job's profile. `acted` counts the parts the service
   * may have acted on without their file being kept (answered then cut off, or out when the attempt
   * stopped): the attempt's failure then must not be sent again on its own, whatever its own cause.
   */
  const partDownloader = (profileId: string | undefined, onCharged: (() => Promise<void>) | undefined) => {
    const tally = { out: 0, acted: 0 };
    const downloadPart: RunBatchDeps['downloadPart'] = async (body, targetFile, signal, onProgress) => {
      tally.out++;
      let settled = false;
      try {
        const res = await source.fetchBinary('composite', body, signal, profileId);
        await onCharged?.();
        if (res.kind !== 'stream') {
          throw new DownloadError('validation', 'A part of a large job was uploaded to UploadUrl; split jobs must be downloaded.');
        }
        await downloadToFile({
          body: res.body,
          dir: path.dirname(targetFile),
          fileName: path.basename(targetFile),
          contentLength: res.contentLength,
          signal,
          onProgress: (bytes) => onProgress(bytes, res.contentLength),
          stallTimeoutMs: options.stallTimeoutMs,
          hash: false,
        });
        settled = true;
      } catch (e) {
        if (!signal.aborted && serviceDidNothing(e)) settled = true;
        throw e;
      } finally {
        tally.out--;
        if (!settled) tally.acted++;
      }
    };
    return { downloadPart, tally };
  };

  /** The plan's name, unique in the library (the folder's own collisions are settled when writing). */
  const nameOf = (plan: BatchPlan): string | undefined => {
    const taken = options.nameTaken;
    if (!taken) return undefined;
    const base = defaultBatchName(plan);
    let name = base;
    for (let n = 1; taken(`${name}.tif`) || taken(`${name}.vrt`); n++) name = `${base}_${n}`;
    return name;
  };

  return async (job, signal, onProgress, onCharged) => {
    const spec = job.batch;
    if (!spec) throw new DownloadError('validation', 'Not a batch job.');
    const plan = planComposite(job.request as CompositeBody, spec.limits);
    const { downloadPart, tally } = partDownloader(job.pass?.profileId, onCharged);
    const deps: RunBatchDeps = { downloadPart, parallelism: Math.max(1, options.parallelism()) };
    const report = (p: { bytes: number; totalBytes: number | null }) => onProgress(p.bytes, p.totalBytes);
    let results: BatchResult[];
    let dates: string[] = [];
    try {
      if (spec.type === 'series') {
        dates = spec.dates ?? [];
        if (dates.length === 0) throw new DownloadError('validation', 'The time series has no dates.');
        results = await runBatches(dates.map((date) => withDate(plan, date)).map((p) => ({ plan: p, name: nameOf(p) })), deps, job.targetDir, signal, report);
      } else {
        results = [await runBatch(plan, deps, job.targetDir, signal, report, { name: nameOf(plan) })];
      }
    } catch (e) {
      if (signal.aborted || (tally.out === 0 && tally.acted === 0)) throw e;
      // Parts kept on disk are reused by a retry; these were not, and the service may have charged them.
      throw new DownloadError(errorKind(e) ?? 'transient', `${errorMessage(e)} (${tally.out + tally.acted} other part request(s) may have been charged without their file)`, { cause: e, mayHaveCharged: true });
    }
    const outputs: BatchOutput[] = [];
    const notes: string[] = [];
    for (const [i, r] of results.entries()) {
      // A series' file answers its own date: the library keys it by that request.
      outputs.push({ ...(await output(r.file)), ...(dates[i] ? { request: { ...job.request, Date: dates[i] } } : {}) });
      if (r.kind === 'vrt') notes.push(`Parts kept with a VRT: ${r.reason ?? 'they differ in CRS or resolution'}.`);
    }
    return notes.length ? { outputs, note: notes.join(' ') } : { outputs };
  };
}

async function output(file: string): Promise<BatchOutput> {
  const st = await stat(file);
  // Hashed by the library after the job is done, off the download's critical path.
  return { path: file, bytes: st.size, sha256: null };
}
