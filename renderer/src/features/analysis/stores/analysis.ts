import { defineStore } from 'pinia';
import type { RequestOf } from '../../../../../preload/contract';
import { ask } from '../../../platform/request';

/** The Library's analyses, asked of main: a time series and its CSV file, a change layer and its save. */
export const useAnalysisStore = defineStore('analysis', () => {
  /** A time series; aborting `signal` cancels it in main. */
  const series = (request: RequestOf<'analysis:series'>, signal?: AbortSignal) => ask((bridge) => bridge.analysisSeries(request), { signal });
  const change = (request: RequestOf<'analysis:change'>) => ask((bridge) => bridge.analysisChange(request));
  const saveChange = (id: string) => ask((bridge) => bridge.analysisChangeSave({ id }));
  /** Writes a series' CSV through main, which never writes over an existing file unless `onExisting` says so. */
  const exportCsv = (request: RequestOf<'export:csv'>) => ask((bridge) => bridge.exportCsv(request));
  return { series, change, saveChange, exportCsv };
});
