import type { HandlerTable } from '../ipc';
import type { FieldMonitor } from './monitor.js';
import type { FieldsService } from './service.js';

/** Channels served here. */
export type FieldChannel =
  | 'fields:inspect' | 'fields:import' | 'fields:sets' | 'fields:delete' | 'fields:parcels' | 'fields:run' | 'fields:results'
  | 'fields:latest' | 'fields:export' | 'fields:attach-watch' | 'fields:detach-watch' | 'fields:watches';

/** The `fields:*` channels, as thin adapters over the {@link FieldsService} and the {@link FieldMonitor}. */
export function fieldHandlers(service: FieldsService, monitor: FieldMonitor): Pick<HandlerTable, FieldChannel> {
  return {
    'fields:inspect': ({ file }, { signal }) => service.inspect(file, signal),
    'fields:import': (req, { signal }) => service.import(req, signal),
    'fields:sets': () => ({ sets: service.sets() }),
    'fields:delete': ({ setId }) => ({ deleted: service.delete(setId) }),
    'fields:parcels': ({ setId, ...query }) => ({ parcels: service.parcels(setId, query) }),
    'fields:run': (req, { signal }) => service.run(req, signal),
    'fields:results': (req) => ({ results: service.results(req) }),
    'fields:latest': async (req, { signal }) => ({ latest: await service.latest(req, signal) }),
    'fields:export': (req, { signal }) => service.export(req, signal),
    'fields:attach-watch': (req) => monitor.attach(req),
    'fields:detach-watch': ({ setId, watchId }) => ({ detached: monitor.detach(setId, watchId) }),
    'fields:watches': ({ setId }) => ({ watches: monitor.list(setId) }),
  };
}
