import type { Contribution } from '../../platform/contributions';

/**
 * Fields: its panel (parcel sets, statistics, the map's parcels, the table, exports, monitoring).
 * A parcel's chart is the analysis feature's, filling the panel's `chart` slot.
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
  shortcuts: [
    { id: 'go-fields-import', keys: 'Alt+P', group: 'Go to', description: 'Fields: Import parcels', focus: { panel: 'fields', testid: 'fields-choose-file' } },
  ],
} satisfies Contribution;
