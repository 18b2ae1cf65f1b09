import { SpendStore } from './spend';
import { WatchStore } from './store';
import { WatchService, type WatchServiceDeps } from './service';

export { WatchStore, type Watch, type WatchDate, type WatchInput } from './store';
export { BILLING_FRESH_MS, SpendStore, spendFromBilling, monthOf, type SpendView } from './spend';
export { runWatch, watchRequest, fullyAvailable, classify, type WatchRunDeps, type WatchClient } from './runner';
export { PAGE_NOTIFICATIONS_PER_MINUTE, WatchService, watchFolder, type WatchChannel } from './service';

/** Opens the watch and spend stores in `dir` (userData) and starts the schedule. */
export async function openWatches(deps: Omit<WatchServiceDeps, 'store' | 'spend'> & { dir: string; budgetCeilingEur?: number | null }): Promise<WatchService> {
  const onWarning = deps.log;
  const store = await WatchStore.open(deps.dir, { now: deps.now, onWarning });
  const spend = await SpendStore.open(deps.dir, { now: deps.now, onWarning, ceilingEur: deps.budgetCeilingEur });
  const service = new WatchService({ ...deps, store, spend });
  service.start();
  return service;
}
