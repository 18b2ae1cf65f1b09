import { AppError } from '../../common/errors.js';
import type { HandlerTable } from '../ipc';
import type { HostConfirm } from '../platform/confirm';
import type { LibraryCatalog } from './catalog.js';
import type { LibraryPage, LibraryQuery } from './entry.js';
import type { OverviewCache } from './overview-cache.js';
import { checkSelection } from './selection.js';

/**
 * The library:* channels. A file Swath did not download is deleted from disk only after the
 * analyst agreed in main's own dialog; a host without one (the browser host) cannot delete it.
 */

/** The channels of the library. */
export type LibraryChannel =
  | 'library:query' | 'library:cover' | 'library:import' | 'library:import-dialog' | 'library:remove'
  | 'library:preview' | 'library:reveal' | 'library:selection';

/** What the library channels need. */
export interface LibraryHandlerDeps {
  library: LibraryCatalog;
  /** Answers the list's pages off main's thread (main/library/query-thread.ts); absent: the catalog answers on main's. */
  queries?: { query(q: LibraryQuery): Promise<LibraryPage> };
  /** Overview copies for previewing non-COG library rasters. */
  overviews: Pick<OverviewCache, 'prepare'>;
  /** Asks the user for GeoTIFF files with the system dialog; absent where the host has none (browser host). */
  chooseFiles?: () => Promise<string[] | null>;
  /** Shows a file in the system file manager; absent where the host cannot (browser host). */
  revealFile?: (file: string) => boolean;
  /** Main's own native question to the analyst; absent in the browser host, where what needs it is refused. */
  confirm?: HostConfirm;
}

/** The library's slice of the channel table. */
export function libraryHandlers(deps: LibraryHandlerDeps): Pick<HandlerTable, LibraryChannel> {
  const { library } = deps;
  return {
    'library:query': (q) => (deps.queries ? deps.queries.query(q) : library.query(q)),
    'library:cover': ({ bbox, limit }) => {
      const all = library.covering(bbox);
      return { total: all.length, entries: all.slice(0, limit) };
    },
    'library:import': async ({ paths }, { signal }) => {
      const entries = [];
      for (const file of paths) entries.push(await library.importFile(file, signal));
      return { entries };
    },
    'library:import-dialog': async (_r, { signal }) => {
      if (!deps.chooseFiles) {
        throw new AppError('validation', 'This window has no system file dialog; paste the file path instead.', { fields: { paths: ['Enter the path of a .tif or .tiff file.'] } });
      }
      const paths = await deps.chooseFiles();
      if (!paths || paths.length === 0) return { entries: [], cancelled: true };
      const entries = [];
      for (const file of paths) entries.push(await library.importFile(file, signal));
      return { entries, cancelled: false };
    },
    'library:remove': async ({ id, deleteFile }, { signal }) => {
      const ask = deps.confirm;
      const confirmDelete = ask
        ? (entry: { path: string }) => ask({
          title: 'Delete file',
          message: 'Delete this file from disk?',
          detail: `${entry.path}\n\nSwath did not download this file; it was imported. It will be deleted permanently.`,
          confirmLabel: 'Delete file',
        })
        : undefined;
      await library.remove(id, { deleteFile, confirmDelete }, signal);
      return { removed: true as const };
    },

    'library:preview': ({ id, quickLook }, { signal }) => deps.overviews.prepare(id, signal, { quickLook }),
    'library:selection': ({ ids, use }) => ({ entries: checkSelection(ids, use, (id) => library.get(id)) }),
    'library:reveal': ({ id }) => {
      const entry = library.get(id);
      if (!entry) throw new AppError('not-found', `No library entry with id ${id}.`);
      return { revealed: deps.revealFile ? deps.revealFile(entry.path) : false };
    },
  };
}
