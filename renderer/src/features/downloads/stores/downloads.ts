import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { EventPayload, IpcError, ResponseOf, Result } from '../../../../../preload/contract';
import { ask, createErrorLine, createRequest, keyedRequests, listen, type Call } from '../../../platform/request';
import { rerunning } from '../../../platform/lib/rerun';
import { useUiStore } from '../../../platform/stores/ui';

/** One download job as main reports it. */
export type DownloadJob = ResponseOf<'downloads:list'>['jobs'][number];
/** How many jobs main has in each state (all pages). */
export type DownloadCounts = ResponseOf<'downloads:list'>['counts'];

const NO_COUNTS: DownloadCounts = { queued: 0, running: 0, done: 0, failed: 0, cancelled: 0 };

/** Live transfer figures of a running job (from download:progress). */
export interface JobProgress {
  bytes: number;
  total: number | null;
  rateBytesPerSec: number;
  etaSec: number | null;
}

/** Jobs asked of main per page: the first page opens the tray, more follow as it scrolls. */
export const DOWNLOADS_PAGE = 100;

const isActive = (j: DownloadJob): boolean => j.state === 'queued' || j.state === 'running';

/** Main's order: the active jobs first (oldest first), then the history (newest first). */
function byQueueOrder(a: DownloadJob, b: DownloadJob): number {
  const aa = isActive(a);
  if (aa !== isActive(b)) return aa ? -1 : 1;
  if (aa) return a.createdAt.localeCompare(b.createdAt);
  return b.updatedAt.localeCompare(a.updatedAt) || b.id.localeCompare(a.id);
}

/**
 * The download queue as the tray shows it: the pages of `downloads:list` read so far (the history
 * stays in main's database; `total` counts every job), kept current by `job:state` and
 * `download:progress` events; cancel, retry, remove and reveal go to main.
 */
export const useDownloadsStore = defineStore('downloads', () => {
  const jobs = ref<DownloadJob[]>([]);
  const progress = ref<Record<string, JobProgress>>({});
  const listReq = createRequest<ResponseOf<'downloads:list'>>();
  /** What failed last of reading the queue, a further page and clearing the history. */
  const line = createErrorLine();
  const error = computed<IpcError | null>(() => line.error);
  /** Whether the first read of the queue has answered. */
  const loaded = computed(() => listReq.at !== null || listReq.error !== null);
  /** Every job main has (all pages). */
  const total = ref(0);
  /** Main's jobs by state (all pages), re-read after each change main reports. */
  const counts = ref<DownloadCounts>({ ...NO_COUNTS });
  /** Where the next page starts (main's position), or null when every page is read. */
  let next: string | null = null;
  let paging: Promise<void> | null = null;
  /** One request per job for its buttons (cancel, retry, remove, reveal). */
  const actions = keyedRequests<unknown>();
  /** Per-job failure of the last action (cancel, retry, reveal...). */
  const actionErrors = computed(() => {
    const out: Record<string, string> = {};
    for (const [id, r] of Object.entries(actions.all)) if (r.error) out[id] = r.error.message;
    return out;
  });
  let unsubscribe: (() => void)[] = [];

  const sorted = computed(() => [...jobs.value].sort(byQueueOrder));
  const active = computed(() => jobs.value.filter(isActive));
  /** Whether main has jobs beyond the pages read. */
  const hasMore = ref(false);
  /** Overall fraction of the running jobs' bytes, or null when unknown. */
  const overall = computed(() => {
    const running = active.value.map((j) => progressOf(j));
    const known = running.filter((p) => p.total);
    if (!known.length) return null;
    const total = known.reduce((s, p) => s + (p.total ?? 0), 0);
    return total ? known.reduce((s, p) => s + p.bytes, 0) / total : null;
  });

  function progressOf(job: DownloadJob): JobProgress {
    return progress.value[job.id] ?? { bytes: job.bytes, total: job.total, rateBytesPerSec: 0, etaSec: null };
  }

  /** Adds or replaces a job (e.g. the answer of downloads:enqueue). */
  function upsert(job: DownloadJob): void {
    const i = jobs.value.findIndex((j) => j.id === job.id);
    if (i >= 0) jobs.value = [...jobs.value.slice(0, i), job, ...jobs.value.slice(i + 1)];
    else {
      jobs.value = [...jobs.value, job];
      total.value++;
    }
    if (job.state !== 'running' && progress.value[job.id]) {
      const next = { ...progress.value };
      delete next[job.id];
      progress.value = next;
    }
  }

  /** Whether every one of these jobs has ended (done, failed or cancelled; one no longer listed has too). */
  function ended(ids: readonly string[]): boolean {
    return ids.every((id) => {
      const j = jobs.value.find((x) => x.id === id);
      return !j || (j.state !== 'queued' && j.state !== 'running');
    });
  }

  /** A "queued" toast for these jobs: it goes when they have ended, or after a few seconds. */
  function notifyQueued(ids: readonly string[], text: string, kind: 'ok' | 'warn' = 'ok'): void {
    useUiStore().notify(text, kind, 3500, () => ended(ids));
  }

  function onProgress(p: EventPayload<'download:progress'>): void {
    progress.value = { ...progress.value, [p.jobId]: { bytes: p.bytes, total: p.total, rateBytesPerSec: p.rateBytesPerSec, etaSec: p.etaSec } };
  }

  function onJobState(payload: EventPayload<'job:state'>): void {
    const job = payload as unknown as DownloadJob;
    if (!job || typeof job.id !== 'string') return;
    // A job:state event may carry the whole job or only its id and state.
    const known = jobs.value.find((j) => j.id === job.id);
    upsert(known ? { ...known, ...job } : job);
    void recount();
  }

  /** Re-reads main's counts (the summary and "Clear finished" count every page, not the rows read); one request at a time, a change during it asks once more after it. */
  const recount = rerunning(async () => {
    const r = await ask((bridge) => bridge.downloadsList({ limit: 1 }));
    if (r.ok) {
      counts.value = r.data.counts;
      total.value = r.data.total;
    }
  });

  function takePage(data: ResponseOf<'downloads:list'>): void {
    total.value = data.total;
    counts.value = data.counts;
    next = data.next;
    hasMore.value = data.next !== null;
  }

  async function refresh(): Promise<void> {
    const r = line.note(await listReq.run((bridge) => bridge.downloadsList({ limit: DOWNLOADS_PAGE })));
    if (r.ok) {
      jobs.value = r.data.jobs;
      takePage(r.data);
    }
  }

  /**
   * Reads the next page (one request at a time; the rows already read are kept). Pages follow main's
   * positions, not counts, so jobs that start, end or go away meanwhile never make it skip a row.
   */
  function loadMore(): Promise<void> {
    if (!hasMore.value || !loaded.value || next === null) return Promise.resolve();
    const after = next;
    paging ??= (async () => {
      const r = await line.ask((bridge) => bridge.downloadsList({ after, limit: DOWNLOADS_PAGE }));
      if (r.ok) {
        const have = new Set(jobs.value.map((j) => j.id));
        const fresh = r.data.jobs.filter((j) => !have.has(j.id));
        if (fresh.length) jobs.value = [...jobs.value, ...fresh];
        takePage(r.data);
      }
    })().finally(() => {
      paging = null;
    });
    return paging;
  }

  /** Loads the queue and follows main's events. */
  async function start(): Promise<void> {
    if (!unsubscribe.length) {
      unsubscribe = [listen('download:progress', onProgress), listen('job:state', onJobState)];
    }
    await refresh();
  }

  function stop(): void {
    unsubscribe.forEach((off) => off());
    unsubscribe = [];
  }

  /** Runs one of a job's actions; its failure shows on the job's row. */
  const act = <T>(id: string, call: Call<T>) => actions.of(id).run(call as Call<unknown>) as Promise<Result<T>>;

  async function cancel(id: string): Promise<void> {
    const r = await act(id, (bridge) => bridge.downloadsCancel({ id }));
    if (r.ok) upsert(r.data);
  }

  async function retry(id: string): Promise<void> {
    const r = await act(id, (bridge) => bridge.downloadsRetry({ id }));
    if (r.ok) upsert(r.data);
  }

  async function remove(id: string): Promise<void> {
    const r = await act(id, (bridge) => bridge.downloadsRemove({ id }));
    if (r.ok) {
      jobs.value = jobs.value.filter((j) => j.id !== id);
      total.value = Math.max(0, total.value - 1);
      void recount();
    }
  }

  /** Shows the file in the system file manager; returns false where the host cannot (the browser host). */
  async function reveal(id: string): Promise<boolean> {
    const r = await act(id, (bridge) => bridge.downloadsReveal({ id }));
    return r.ok && r.data.revealed;
  }

  /** Removes every finished job in these states from main's history, in all pages (the files stay). */
  async function clear(states: ('done' | 'failed' | 'cancelled')[]): Promise<number | null> {
    const r = await line.ask((bridge) => bridge.downloadsClear({ states }));
    if (!r.ok) return null;
    jobs.value = jobs.value.filter((j) => !(states as string[]).includes(j.state));
    counts.value = r.data.counts;
    total.value = Object.values(r.data.counts).reduce((a, b) => a + b, 0);
    return r.data.removed;
  }

  return { jobs, total, counts, hasMore, loadMore, sorted, active, overall, progress, error, loaded, actionErrors, progressOf, upsert, ended, notifyQueued, refresh, start, stop, cancel, retry, remove, reveal, clear, recount };
});
