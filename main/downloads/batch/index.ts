/** Large jobs run: a plan's parts downloaded, mosaicked and described by a VRT (the plan itself is ../../batch-plan). */
export { readPartRaster, type PartRaster, type ServiceDataType } from './raster-info.js';
export { mosaicBlocker, mosaicParts, type MosaicOptions, type MosaicResult, type MosaicSource } from './mosaic.js';
export { writeVrt, type VrtResult, type VrtSource } from './vrt.js';
export {
  BatchPartError, batchWorkDir, defaultBatchName, runBatch, runBatches,
  type BatchProgress, type BatchResult, type DownloadPart, type RunBatchDeps, type RunBatchOptions,
} from './run-batch.js';
