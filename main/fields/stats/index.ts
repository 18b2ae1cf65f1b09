/** Field statistics: the pixel rules, the weighted statistics, the run in its worker threads and the stored results. */
export { coverageOf, MAX_PARCEL_PIXELS, PIXEL_RULES } from './coverage.js';
export type { Coverage, PixelGrid, PixelRule, Window } from './coverage.js';
export { weightedPercentile, weightedStats } from './statistics.js';
export type { WeightedStats } from './statistics.js';
export { DEFAULT_MIN_VALID_SHARE, FieldStatistics } from './service.js';
export type { FieldRunProgress, FieldRunRequest, FieldStatisticsDeps, ParcelSource, RasterSource } from './service.js';
export { FieldStatisticsStore, LATEST_PAGE_ROWS, MAX_LATEST_PARCELS } from './store.js';
export type { FieldStatistic, LatestValue, StatisticKey } from './store.js';
export { FieldStatisticsWorkers } from './workers.js';
