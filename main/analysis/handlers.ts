import type { HandlerTable } from '../ipc';
import type { AnalysisService } from './service.js';

/** The `analysis:*` channels, as thin adapters over the {@link AnalysisService}. */
export function analysisHandlers(service: AnalysisService): Pick<HandlerTable, 'analysis:series' | 'analysis:change' | 'analysis:change-save'> {
  return {
    'analysis:series': (req, { signal }) => service.series(req, signal),
    'analysis:change': (req, { signal }) => service.change(req, signal),
    'analysis:change-save': ({ id }, { signal }) => service.saveChange(id, signal),
  };
}
