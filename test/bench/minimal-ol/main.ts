// The cold-start reference of `npm run bench -- renderer`: a bare OpenLayers map with Swath's
// offline basemap (the same 1:110m country data, read and styled the same way) at Swath's first
// view, and nothing else. It marks the same performance entry as Swath's map when its first
// complete frame is drawn.
import 'ol/ol.css';
import OlMap from 'ol/Map';
import View from 'ol/View';
import { fromLonLat } from 'ol/proj';
import { createBasemap } from '../../../renderer/src/platform/map/basemap';

const map = new OlMap({
  target: 'map',
  layers: [createBasemap().layer],
  view: new View({ center: fromLonLat([12, 50]), zoom: 4 }),
});
map.once('rendercomplete', () => performance.mark('swath:map-interactive'));
