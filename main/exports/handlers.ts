import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { HandlerTable } from '../ipc';
import { AppError } from '../../common/errors.js';
import type { LibraryCatalog, LibraryEntry } from '../library';
import { systemClock, type Clock } from '../platform/clock';
import type { SettingsPort } from '../platform/settings';
import { numberedName, publishWithoutReplacing, writeFileAtomic, writeNewFile, writeNumberedFile } from '../shared/files.js';
import { writeFeatureCollection } from './geojson.js';
import { writeStacCatalog } from './stac.js';

/** What the host may offer to pick where an export goes (Electron: the system save dialog). */
export interface ExportTargetRequest {
  kind: 'folder' | 'file';
  title: string;
  defaultPath: string;
  /** File filters of a 'file' target. */
  extensions?: string[];
}

/** What the export handlers need. */
export interface ExportDeps {
  library: LibraryCatalog;
  /** The effective settings: exports without a dialog go under the (policy's) download folder. */
  settings: SettingsPort;
  /** Asks where to write; null when the analyst cancels. Absent (browser host): exports go under the download folder. */
  chooseExportPath?: (request: ExportTargetRequest) => Promise<string | null>;
  /** Every raster of the team catalog, as library entries whose paths are their files on the share; absent: no team library. */
  teamEntries?: (signal: AbortSignal) => Promise<LibraryEntry[]>;
  /** The app's clock (export names, the catalog's id); the system clock by default. */
  clock?: Clock;
}

/** YYYYMMDD-HHMMSS (UTC), for default export names. */
export function stamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace('T', '-').replace(/\.\d+Z$/, '');
}

/** `file`, or `file-2`, `file-3`… (before the extension) when it exists. */
function unused(file: string): string {
  let candidate = file;
  for (let i = 1; existsSync(candidate); i++) candidate = path.join(path.dirname(file), numberedName(path.basename(file), i));
  return candidate;
}

/** The export channels, as main services: `export:stac`, `export:geojson` and `export:csv`. */
export function exportHandlers(deps: ExportDeps): Pick<HandlerTable, 'export:stac' | 'export:geojson' | 'export:csv'> {
  const clock = deps.clock ?? systemClock;
  const now = () => new Date(clock.now());

  /**
   * Where to write: the host's dialog, else `<download folder>/exports/<name>` (a new name, never an
   * earlier export's, unless `keepName`: the caller decides what an existing file means).
   */
  async function target(kind: 'folder' | 'file', title: string, name: string, extensions?: string[], keepName = false): Promise<string | null> {
    const fallback = path.join(deps.settings.get().downloadDir, 'exports', name);
    if (!deps.chooseExportPath) return keepName ? fallback : unused(fallback);
    const chosen = await deps.chooseExportPath({ kind, title, defaultPath: fallback, extensions });
    if (chosen !== null && !path.isAbsolute(chosen)) throw new AppError('validation', 'The export path must be absolute.');
    return chosen;
  }

  /** The rasters asked for: the whole library a page at a time (never all in memory), or these ids. */
  function rastersFor(ids: string[] | undefined): Iterable<LibraryEntry> | AsyncIterable<LibraryEntry> {
    if (!ids) return deps.library.everyEntry();
    return ids.map((id) => {
      const entry = deps.library.get(id);
      if (!entry) throw new AppError('not-found', `No library raster ${id}.`);
      return entry;
    });
  }

  return {
    'export:stac': async ({ ids, title, source }, { signal }) => {
      if (source === 'team' && ids) throw new AppError('validation', 'ids: the team catalog is exported whole.', { fields: { ids: ['The team catalog is exported whole: leave ids out.'] } });
      if (source === 'team' && !deps.teamEntries) throw new AppError('validation', 'No team library is set up: your organisation’s policy names no team catalog.');
      const entries = source === 'team' ? await deps.teamEntries!(signal) : rastersFor(ids);
      if (Array.isArray(entries) ? entries.length === 0 : deps.library.count() === 0) throw new AppError('validation', source === 'team' ? 'The team catalog is empty: there is nothing to export.' : 'The library is empty: there is nothing to export.');
      const dir = await target('folder', 'Export STAC catalog', `stac-${stamp(now())}`);
      if (dir === null) return { cancelled: true, dir: null, catalogFile: null, items: 0, skipped: [] };
      const out = await writeStacCatalog(entries, { dir, title: title ?? (source === 'team' ? 'Swath team library' : undefined), clock }, signal);
      return { cancelled: false, ...out };
    },
    'export:geojson': async ({ name, features }, { signal }) => {
      const file = await target('file', 'Export GeoJSON', `${name}-${stamp(now())}.geojson`, ['geojson', 'json']);
      if (file === null) return { cancelled: true, file: null, features: 0 };
      return { cancelled: false, ...(await writeFeatureCollection(file, features, name, signal)) };
    },
    'export:csv': async ({ name, csv, onExisting = 'refuse' }) => {
      const file = await target('file', 'Export CSV', `${name}.csv`, ['csv'], true);
      if (file === null) return { cancelled: true, file: null, exists: false };
      if (onExisting === 'replace') {
        await writeFileAtomic(file, csv);
        return { cancelled: false, file, exists: false };
      }
      // Refuse or rename: never over a file that is there, whoever made it and when (published by a link, which fails on a taken name).
      if (onExisting === 'rename') return { cancelled: false, file: await writeNumberedFile(file, csv), exists: false };
      await mkdir(path.dirname(file), { recursive: true });
      const part = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.part`);
      await writeNewFile(part, csv, 0o644);
      try {
        return { cancelled: false, file, exists: !(await publishWithoutReplacing(part, file)) };
      } finally {
        await rm(part, { force: true });
      }
    },
  };
}
