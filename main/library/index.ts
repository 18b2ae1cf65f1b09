/** The library of local rasters: catalog, GeoTIFF metadata, and the swath-raster:// Range logic. */
export { LIBRARY_FILE, LibraryCatalog, sha256File, type Box, type DownloadedRaster, type LibraryEntry, type LibraryEvents, type LibraryOptions, type LibraryPage, type LibraryQuery, type LibrarySort } from './catalog.js';
export { METRES_PER_DEGREE, boundsTo4326, readRasterMetadata, type RasterMetadata } from './metadata.js';
export { RASTER_SCHEME, libraryIdFromUrl, parseRange, serveLibraryFile, type ParsedRange, type RasterFileLookup, type RasterResponse, type RemoteRasterFile } from './raster-protocol.js';
export { libraryHandlers, type LibraryChannel, type LibraryHandlerDeps } from './handlers.js';
export { LibraryQueryThread } from './query-thread.js';
export { IdenticalRasters, identicalRequestKey } from './request-identity.js';
