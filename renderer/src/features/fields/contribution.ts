import { getActivePinia } from 'pinia';
import type { Contribution } from '../../platform/contributions';
import { afterStart } from '../../platform/lib/idle';

/**
 * Fields: its panel (parcel sets, statistics, the table, exports, monitoring) and its map layer, the
 * selected set's parcels (whose code loads once the start has settled: there are no parcels to draw
 * before the panel has been opened). A parcel's chart is the analysis feature's, filling the
 * panel's `chart` slot.
 */
export default {
  feature: 'fields',
  panel: {
    id: 'fields',
    name: 'Fields',
    icon: 'fields',
    keys: '9',
    summary: 'Parcel boundaries: exact statistics per field and date over the library, the fields that changed, exports.',
    load: () => import('./views/FieldsPanel.vue'),
  },
  mapLayers: [
    {
      id: 'fields-parcels',
      install: () => {
        const pinia = getActivePinia();
        let remove: (() => void) | null = null;
        let removed = false;
        afterStart(() => void import('./views/parcel-layer').then(({ installParcelLayer }) => {
          if (!removed) remove = installParcelLayer(pinia);
        }));
        return () => {
          removed = true;
          remove?.();
        };
      },
    },
  ],
  shortcuts: [
    { id: 'go-fields-import', keys: 'Alt+P', group: 'Go to', description: 'Fields: Import parcels', focus: { panel: 'fields', testid: 'fields-choose-file' } },
  ],
} satisfies Contribution;
