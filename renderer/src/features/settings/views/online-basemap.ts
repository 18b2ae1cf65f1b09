import TileLayer from 'ol/layer/Tile';
import OSM from 'ol/source/OSM';

/**
 * The optional online basemap: OpenStreetMap, or the internal XYZ server an
 * admin policy names (the CSP allows exactly that host then). Off unless
 * Settings turn it on; the settings' map layer (online-layer.ts) loads this
 * module (and OpenLayers' tile code) the first time the layer is shown, so it
 * is not part of the first paint.
 */

/** Where the tiles come from: OpenStreetMap (url null) or an XYZ template. */
export interface OnlineTiles {
  url: string | null;
  attribution: string | null;
}

/** The online layer over the offline basemap, reading from `tiles`. */
export function createOnlineLayer(tiles: OnlineTiles, onError: (message: string) => void): TileLayer<OSM> {
  const layer = new TileLayer<OSM>({ zIndex: 1, opacity: 0.85 });
  setOnlineSource(layer, tiles, onError);
  return layer;
}

/** Points the online layer at `tiles`; the first failed tile after a good one reports through `onError`. */
export function setOnlineSource(layer: TileLayer<OSM>, { url, attribution }: OnlineTiles, onError: (message: string) => void): void {
  const source = url ? new OSM({ url, crossOrigin: 'anonymous', attributions: attribution ?? undefined }) : new OSM({ crossOrigin: 'anonymous' });
  const name = url ? `The internal basemap (${new URL(url.replace(/[{}]/g, '')).host})` : 'OpenStreetMap';
  let reported = false;
  source.on('tileloaderror', () => {
    if (reported) return;
    reported = true;
    onError(url ? `${name} tiles did not load: the network or the tile server is unavailable.` : 'OpenStreetMap tiles did not load: the network or tile.openstreetmap.org is unavailable.');
  });
  source.on('tileloadend', () => {
    reported = false;
  });
  layer.setSource(source);
}
