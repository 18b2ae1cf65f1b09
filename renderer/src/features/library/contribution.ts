import type { Contribution } from '../../platform/contributions';
import { askFirstPageAhead } from './stores/first-page-ahead';

const NO_RASTER = 'the library has no raster yet: download or import one first';

/** Library: its panel (asking for its first page as the panel's code is asked for) and its "go to" shortcuts. */
export default {
  feature: 'library',
  panel: {
    id: 'library',
    name: 'Library',
    icon: 'library',
    keys: '3',
    summary: 'Local rasters, previewed on the map without a network.',
    load: () => import('./views/LibraryPanel.vue'),
    warm: askFirstPageAhead,
  },
  shortcuts: [
    { id: 'go-time-series', keys: 'Alt+G', group: 'Go to', description: 'Library: Time series', focus: { panel: 'library', testid: 'series-compute', missing: NO_RASTER } },
    { id: 'go-export', keys: 'Alt+X', group: 'Go to', description: 'Library: Export STAC', focus: { panel: 'library', testid: 'stac-export-button', missing: NO_RASTER } },
  ],
} satisfies Contribution;
