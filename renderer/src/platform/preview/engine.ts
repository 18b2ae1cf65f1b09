/**
 * The raster preview engine: geotiff.js, proj4 and OpenLayers' WebGL and reprojection code, with
 * Swath's raster modules on top. It is not part of the first-paint bundle: the stores load it on
 * first use through {@link loadPreviewEngine} (./load-engine.ts), and the map prefetches it once it
 * is idle after its first frame.
 */
export { readInspector } from './inspector';
export { PreviewSession } from './preview-session';
export { makeThumbnail } from './thumbnail';
export { ensureProjection } from '../raster/projection';
export { RasterFile, rasterUrl } from '../raster/raster-data';
