import { defineStore } from 'pinia';
import type { RequestOf } from '../../../../../preload/contract';
import { getBridge } from '../../../platform/bridge';

/** The Library's analyses, asked of main: a time series and its CSV file, a change layer and its save. */
export const useAnalysisStore = defineStore('analysis', () => {
  /** A time series; aborting `signal` cancels it in main. */
  const series = (request: RequestOf<'analysis:series'>, signal?: AbortSignal) => getBridge(signal).analysisSeries(request);
  const change = (request: RequestOf<'analysis:change'>) => getBridge().analysisChange(request);
  const saveChange = (id: string) => getBridge().analysisChangeSave({ id });
  /** Writes a series' CSV through main, which never writes over an existing file unless `onExisting` says so. */
  const exportCsv = (request: RequestOf<'export:csv'>) => getBridge().exportCsv(request);
  return { series, change, saveChange, exportCsv };
});
