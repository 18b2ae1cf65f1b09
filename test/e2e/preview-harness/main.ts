// The preview end-to-end tests and the preview benchmark run the real Library panel, store and
// raster modules against the real main process (browser host), on a bare map: one OpenLayers map
// in EPSG:3857 with no basemap, so every coloured pixel is ours.
import 'ol/ol.css';
import '../../../renderer/src/assets/base.css';
import { createPinia } from 'pinia';
import { createApp } from 'vue';
import Harness from './Harness.vue';

createApp(Harness).use(createPinia()).mount('#app');
