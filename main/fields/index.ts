import path from 'node:path';
import type { LibraryCatalog } from '../library';
import type { Notifier } from '../notifications/notifier';
import type { Emit } from '../platform/emit';
import type { OpenDatabase } from '../shared/database';
import type { HandlerTable } from '../ipc';
import { fieldHandlers, type FieldChannel } from './handlers.js';
import { FieldMonitor } from './monitor.js';
import { ParcelStore } from './parcels.js';
import { FieldsService } from './service.js';
import { FieldStatistics, FieldStatisticsStore, FieldStatisticsWorkers } from './stats/index.js';

/** Parcel sets, their statistics over the library, watch monitoring and the exports: the fields feature in main. */
export { FieldsService, PARCEL_EXTENSIONS, type FieldsDeps } from './service.js';
export { FieldMonitor, changeSentence, indexName, type FieldMonitorDeps, type FieldWatch } from './monitor.js';
export { fieldHandlers, type FieldChannel } from './handlers.js';
export type { ParcelsPort, StatisticsPort } from './ports';

/** The fields feature as the app mounts it. */
export interface OpenFields {
  handlers: Pick<HandlerTable, FieldChannel>;
  /** Told of every watch change (the composition root forwards `watch:changed`). */
  monitor: FieldMonitor;
  service: FieldsService;
  close(): Promise<void>;
}

/**
 * Builds the fields feature over the app's database and library: the parcel store (import in its
 * worker), the statistics engine (its own worker threads, results and coverage in swath.db), the
 * watch monitor and the channels.
 */
export function openFields(deps: {
  database: OpenDatabase;
  library: LibraryCatalog;
  notifier: Pick<Notifier, 'notify'>;
  emit: Emit;
  log: (line: string) => void;
  now: () => number;
  downloadDir: () => string;
  chooseParcelFile?: () => Promise<string | null>;
}): OpenFields {
  const parcels = new ParcelStore({ db: deps.database.db, file: deps.database.file, now: deps.now, onWarning: deps.log });
  const results = new FieldStatisticsStore(deps.database.db);
  const workers = new FieldStatisticsWorkers();
  const statistics = new FieldStatistics({ store: results, workers, library: deps.library, parcels });
  const monitor = new FieldMonitor({ db: deps.database.db, parcels, statistics, notify: (n) => deps.notifier.notify(n), emit: deps.emit, log: deps.log, now: deps.now });
  const service = new FieldsService({
    parcels, statistics, monitor, emit: deps.emit, now: deps.now, downloadDir: deps.downloadDir, chooseParcelFile: deps.chooseParcelFile,
    // A deleted set's results and coverage go in batches, off the delete's call.
    forgetResults: () => void results.purgeDeletedSets().catch((e: unknown) => deps.log(`fields: purging a deleted set's statistics: ${String(e)}`)),
    rasterName: (id) => {
      const entry = deps.library.get(id);
      return entry ? path.basename(entry.path) : null;
    },
  });
  return {
    handlers: fieldHandlers(service, monitor),
    monitor,
    service,
    async close() {
      await monitor.close();
      await workers.close();
      await parcels.close();
    },
  };
}
