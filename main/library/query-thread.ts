import { entryPoint, type EntryPoint } from '../shared/entry-point.js';
import { WorkerPool } from '../shared/worker-pool.js';
import { LIBRARY_FIRST_PAGE } from '../../common/library-first-page.js';
import type { LibraryPage, LibraryQuery } from './entry.js';

/** How many recent answers are kept (a page is at most 500 entries). */
const KEPT_ANSWERS = 4;

/** A query's fields in a fixed order (absent ones as null): equal keys ask the same. */
function queryKey(q: LibraryQuery): string {
  return JSON.stringify([q.text, q.source, q.dateFrom, q.dateTo, q.bbox, q.ids, q.sort, q.offset, q.limit, q.series].map((v) => v ?? null));
}

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
 *
 * The last few answers are kept with the library's version when they were asked (`version`: main's
 * connection, which changes with every commit to the database): the same query asked again while
 * nothing was committed is answered from them. The Library's first page is asked at start
 * ({@link warm}), so opening the panel finds it ready.
 */
export class LibraryQueryThread {
  private readonly pool: WorkerPool<QueryTask, LibraryPage>;
  private failed = false;
  private closed = false;
  /**
   * Recent answers by query (oldest first), each with the version it was asked at; an answer still
   * coming is kept too, so the same query asked meanwhile (the panel opened during the start's first
   * page) waits for that one walk.
   */
  private readonly answers = new Map<string, { version: string; page: Promise<LibraryPage> }>();

  /**
   * `version`: changes whenever the library may have changed (LibraryCatalog.changeVersion);
   * `entry`: the worker module (tests give one that cannot start).
   */
  constructor(private readonly opts: {
    file: string; fallback: (q: LibraryQuery) => LibraryPage; version: () => string;
    onWarning?: (message: string) => void; entry?: () => EntryPoint;
  }) {
    this.pool = new WorkerPool<QueryTask, LibraryPage>({
      name: 'library query',
      entry: opts.entry ?? (() => entryPoint(import.meta.url, './query-worker.ts', 'library-query-worker')),
      size: 1,
    });
  }

  /**
   * Starts the thread and its connection now with the Library's first page, which is then kept
   * (see the class); a failure here is the same as a query's (the fallback takes over, once said).
   */
  async warm(): Promise<void> {
    await this.query({ ...LIBRARY_FIRST_PAGE }).catch(() => undefined);
  }

  /** One page of the list (see LibraryReader.query), answered off main's thread or from a recent answer. */
  async query(query: LibraryQuery): Promise<LibraryPage> {
    const key = queryKey(query);
    // Taken before asking: a commit while the query runs makes its answer one that is not reused.
    const version = this.opts.version();
    const known = this.answers.get(key);
    if (known?.version === version) return known.page;
    const page = this.ask(query);
    this.answers.delete(key);
    this.answers.set(key, { version, page });
    if (this.answers.size > KEPT_ANSWERS) this.answers.delete(this.answers.keys().next().value!);
    // A failed query (the thread closing) is not an answer to keep.
    page.catch(() => {
      if (this.answers.get(key)?.page === page) this.answers.delete(key);
    });
    return page;
  }

  private async ask(query: LibraryQuery): Promise<LibraryPage> {
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
