import { entryPoint, type EntryPoint } from '../shared/entry-point.js';
import { WorkerPool } from '../shared/worker-pool.js';
import type { LibraryPage, LibraryQuery } from './entry.js';

/** One query for the thread: the database file and the page asked. */
export interface QueryTask {
  file: string;
  query: LibraryQuery;
}

/**
 * The library list's queries on a worker thread (main/library/query-worker.ts) with its own
 * read-only connection to swath.db: `library:query` at 100,000 rasters costs tens of milliseconds
 * (a page's walk, a search's counts), which on main's thread held every other channel, the
 * download queue and the browser host's socket. Queries run one at a time, in order. Should the
 * thread fail (it cannot start, its connection cannot open), `fallback` answers on main's own
 * connection and `onWarning` says so once.
 */
export class LibraryQueryThread {
  private readonly pool: WorkerPool<QueryTask, LibraryPage>;
  private failed = false;
  private closed = false;

  /** `entry`: the worker module (tests give one that cannot start). */
  constructor(private readonly opts: { file: string; fallback: (q: LibraryQuery) => LibraryPage; onWarning?: (message: string) => void; entry?: () => EntryPoint }) {
    this.pool = new WorkerPool<QueryTask, LibraryPage>({
      name: 'library query',
      entry: opts.entry ?? (() => entryPoint(import.meta.url, './query-worker.ts', 'library-query-worker')),
      size: 1,
    });
  }

  /**
   * Starts the thread and its connection now, with a first row of the list as the window first asks
   * for it (time series grouped, unfiltered: its counts are then kept), so the window's first page
   * does not wait for them; a failure here is the same as a query's (the fallback takes over, once said).
   */
  warm(): void {
    void this.query({ limit: 1, series: true }).catch(() => undefined);
  }

  /** One page of the list (see LibraryReader.query), answered off main's thread. */
  async query(query: LibraryQuery): Promise<LibraryPage> {
    if (this.failed) return this.opts.fallback(query);
    try {
      // Not cancelled with the request: a query is short, and ending the thread would cost its next start.
      return await this.pool.run({ file: this.opts.file, query }, new AbortController().signal);
    } catch (e) {
      if (this.closed) throw e;
      // The same query on main's connection: if it fails there too, the query was the problem, not the thread.
      const page = this.opts.fallback(query);
      this.failed = true;
      this.opts.onWarning?.(`The library's queries run on main's thread from now on: their worker failed (${(e as Error).message}).`);
      return page;
    }
  }

  /** Ends the thread (a query still running rejects). */
  close(): Promise<void> {
    this.closed = true;
    return this.pool.close();
  }
}
