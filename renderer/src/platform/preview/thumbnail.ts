import { transformExtent } from 'ol/proj';
import type { LibraryItem } from '../lib/library-item';
import { defaultDisplay, displayChannels } from '../raster/display';
import { buildHistogram } from '../raster/histogram';
import { ensureProjection } from '../raster/projection';
import { channelValues, RasterFile, rasterUrl } from '../raster/raster-data';
import { renderSample, rgbaToDataUrl } from '../raster/render-sample';
import { stretchRange } from '../raster/stretch';
import type { AskPreview } from './types';

/**
 * A library raster's thumbnail as a data URL ('' when it cannot be drawn), read from its smallest
 * fitting overview with the default display. `onFootprint` gets the lon/lat footprint of a raster
 * whose CRS main could not reproject (its entry has no bounds4326).
 */
export async function makeThumbnail(e: LibraryItem, onFootprint: (bbox: [number, number, number, number]) => void, askPreview: AskPreview): Promise<string> {
  let file = await RasterFile.open(rasterUrl(e.id));
  try {
    const h = file.header;
    if (!e.bounds4326 && h.bbox && h.epsg != null) {
      const proj = await ensureProjection(h.epsg).catch(() => null);
      if (proj) onFootprint(transformExtent(h.bbox, proj.code, 'EPSG:4326', 8) as [number, number, number, number]);
    }
    // A big file without overviews would be read whole: main makes a small quick look of it (or has its copy).
    if (h.overviews === 0 && Math.max(h.width, h.height) > 2048) {
      const prep = await askPreview({ id: e.id, quickLook: 256 });
      if (!prep.ok || prep.data.rasterId === e.id) return '';
      await file.close();
      file = await RasterFile.open(rasterUrl(prep.data.rasterId));
    }
    const sample = await file.readSample(file.overviewLevel(96), 96);
    const display = defaultDisplay(h.bands);
    const ch = displayChannels(display, h.bands);
    if (!ch.ok) return '';
    const ranges = ch.channels.map((c) => stretchRange(buildHistogram(channelValues(sample, c, h.bands, h.nodata)), display.stretch));
    const rgba = renderSample(sample, ch.channels, h.bands, h.nodata, ranges, display.stretch.gamma, display.ramp);
    return rgbaToDataUrl(rgba, sample.width, sample.height);
  } finally {
    await file.close();
  }
}
