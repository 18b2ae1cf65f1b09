import type { DatabaseSync } from 'node:sqlite';
import { WatchStore } from './store';
import { WatchService, type WatchServiceDeps } from './service';

export { WATCHES_FILE, WatchStore, type Watch, type WatchDate, type WatchInput, type WatchSummary } from './store';
export { runWatch, type WatchRunDeps, type WatchClient } from './runner';
export { watchRequest, fullyAvailable, classify } from './run-machine';
export { WatchService, watchFolder, type WatchChannel } from './service';

/** Opens the watch store in `db` (an old watches.json in `dir`, userData, is imported once) and starts the schedule. */
export async function openWatches(deps: Omit<WatchServiceDeps, 'store'> & { dir: string; db: DatabaseSync }): Promise<WatchService> {
  const store = await WatchStore.open(deps.dir, { now: deps.now, onWarning: deps.log, db: deps.db });
  const service = new WatchService({ ...deps, store });
  service.start();
  return service;
}
