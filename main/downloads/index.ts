/** Downloads: the persistent job queue, streaming to `.part` with verification, and safe file names. */
export { DownloadQueue, MAX_PAGE, QUEUE_FILE, type DownloadQueueOptions, type JobPage, type JobReactions, type NewDownload, type PageQuery, type QueueEvents } from './queue.js';
export {
  DEFAULT_STALL_TIMEOUT_MS, KEEP_CONTENT_BYTES, PART_SUFFIX, downloadToFile, publishPartFile, removeIfExists, reservePartFile, verifyGeoTiff, writeBody,
  type DownloadToFileOptions, type DownloadedFile, type ReservedPart, type WrittenBody,
} from './stream-to-file.js';
export { MAX_FILE_NAME_BYTES, sanitizeFileName, splitExtension } from './file-name.js';
export * from './types.js';
export { createBatchRunner, type BatchRunnerOptions } from './batch-job.js';
export { downloadHandlers, identicalActiveJob, identicalInLibrary, publicJob, type DownloadChannel, type DownloadHandlerDeps, type LibraryCopy, type LibraryLookup } from './handlers.js';
