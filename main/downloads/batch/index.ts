/** Large jobs: planning composites against account limits, batch estimates, running parts, mosaics, VRTs and time series. */
export { PlanError, type Rings } from './geo.js';
export { expandBandnames, bandnamesFor, type ExpandedBandnames } from './bandnames.js';
export {
  bandGroupsOf, limitsFromAccountInfo, planComposite, resolveOutputEpsg, serviceWindowOf,
  type BatchLimits, type BatchPart, type BatchPlan, type CompositeBody, type OutputGrid, type PixelWindow, type PlanBlock, type PlanOptions,
} from './plan.js';
export { estimateBatch, readEstimate, sumEstimates, type AreaCreditEstimate, type BatchEstimate, type EstimateBatchOptions, type EstimateOne, type PartEstimate } from './estimate.js';
export { readPartRaster, type PartRaster, type ServiceDataType } from './raster-info.js';
export { mosaicBlocker, mosaicParts, type MosaicOptions, type MosaicResult, type MosaicSource } from './mosaic.js';
export { writeVrt, type VrtResult, type VrtSource } from './vrt.js';
export {
  BatchPartError, batchWorkDir, defaultBatchName, runBatch, runBatches,
  type BatchProgress, type BatchResult, type DownloadPart, type RunBatchDeps, type RunBatchOptions,
} from './run-batch.js';
export { datesFromSearchAvailable, withDate } from './time-series.js';
