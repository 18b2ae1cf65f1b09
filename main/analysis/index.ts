/** Time series and change layers over the library, computed in worker threads from the files on disk. */
export { AnalysisService, CHANGE_NODATA, readAoiInput, type AnalysisDeps, type AoiInput } from './service.js';
export { AnalysisWorkers } from './pool.js';
export { analysisHandlers } from './handlers.js';
export { parseIndexExpression, readPlanFor, unitOf, type IndexSpec } from './expression.js';
export { histogramOf, percentileSorted, summarize, type AreaStats } from './stats.js';
