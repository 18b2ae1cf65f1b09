import { createPinia } from 'pinia';
import { createApp } from 'vue';
import 'ol/ol.css';
import Root from './Root.vue';
import { installErrorHandlers } from './platform/stores/crash';
import './assets/base.css';

const app = createApp(Root).use(createPinia());
installErrorHandlers(app);
app.mount('#app');
