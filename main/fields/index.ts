/** Parcel sets, their statistics over the library, watch monitoring and the exports: the fields feature in main. */
export { FieldsService, PARCEL_EXTENSIONS, type FieldsDeps } from './service.js';
export { FieldMonitor, changeSentence, indexName, type FieldMonitorDeps, type FieldWatch } from './monitor.js';
export { fieldHandlers, type FieldChannel } from './handlers.js';
export type { ParcelsPort, StatisticsPort } from './ports';
