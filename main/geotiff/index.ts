/** GeoTIFF reading and writing in main: headers, GeoKeys, GDAL metadata, layout and the one pyramid writer. */
export { buildTiffLayout, pyramidLevels } from './layout.js';
export type { TiffGeoSpec, TiffLayout, TiffLevelLayout, TiffLevelSpec, TiffSpec } from './layout.js';
export { epsgOfGeoKeys, isGeographic } from './geokeys.js';
export { escapeXml, gdalMetadataXml, metadataBySample, metadataOf, parseGdalMetadata, stripNuls } from './gdal-metadata.js';
export { MAX_BANDS, MAX_BLOCKS, MAX_BLOCK_BYTES, MAX_GDAL_METADATA_CHARS, MAX_IMAGE_SAMPLES } from './limits.js';
export type { GdalMetadataItem } from './gdal-metadata.js';
export { countImages, gridOf, openGeoTiff, readGeoTiffHeader } from './header.js';
export { geoTiffOf, HEAD_BYTES, ownBuffer, READ_WHOLE_BYTES, TiffFile } from './tiff-file.js';
export type { TiffBytes } from './tiff-file.js';
export type { GeoTiffHeader, OpenGeoTiff, RasterGrid } from './header.js';
export { checkBlocksInFile, isCloudOptimizedLayout, readStripTable } from './ifd.js';
export { bytesPerSample, newSamples, nodataOf, sampleTypeOf } from './samples.js';
export type { PixelArray, SampleType } from './samples.js';
export { COG_TILE, cogLevels, mean2x2, pyramidLayout, sourceRects, stagePyramid, writePyramid } from './pyramid.js';
export type { StagedFile } from './staged.js';
export { startDeflateThreads } from './deflate-threads.js';
export type { PixelRect, PixelSource, PyramidImage, StagedPyramid, WritePyramidOptions } from './pyramid.js';
