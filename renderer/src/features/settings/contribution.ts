import type { Contribution } from '../../platform/contributions';
import { installOnlineBasemap } from './views/online-layer';
import { useSettingsStore } from './stores/settings';

/** Settings: its panel, the online basemap its `osmLayer` turns on, and where the map's last view is kept. */
export default {
  feature: 'settings',
  panel: {
    id: 'settings',
    name: 'Settings',
    icon: 'settings',
    keys: '7',
    summary: 'Service profiles and keys, download folder, theme, map layers.',
    load: () => import('./views/SettingsPanel.vue'),
  },
  mapLayers: [{ id: 'online-basemap', install: installOnlineBasemap }],
  savedView: {
    load: () => useSettingsStore().savedMapView(),
    save: (view) => useSettingsStore().saveMapView(view),
  },
} satisfies Contribution;
