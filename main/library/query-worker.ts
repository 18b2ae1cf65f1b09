/**
 * Entry of the library's query thread (main/library/query-thread.ts): answers `library:query` pages
 * on a read-only connection of its own to swath.db, so a query of 100,000 rasters never holds main's
 * event loop. Bundled as out/main/library-query-worker.js.
 */
import { openThreadConnection } from '../shared/connection.js';
import { serveTasks } from '../shared/worker-pool.js';
import type { LibraryPage } from './entry.js';
import type { QueryTask } from './query-thread.js';
import { LibraryReader } from './reader.js';

let open: { file: string; reader: LibraryReader } | null = null;

function readerFor(file: string): LibraryReader {
  if (open?.file !== file) {
    // WAL: this connection reads the last commit while main writes the next one.
    const db = openThreadConnection(file, { readOnly: true });
    open = { file, reader: new LibraryReader(db) };
  }
  return open.reader;
}

serveTasks<QueryTask, LibraryPage>(async (task) => ({ result: readerFor(task.file).query(task.query) }));
