import type { Contribution } from '../../platform/contributions';
import BriefLauncher from './views/BriefLauncher.vue';

/**
 * The one-page brief: a status bar button and the B shortcut open its dialog, so do a button under
 * the Library's layers on the map (its `brief` slot), one on each layer card (its `layer` slot) and
 * one in its selection bar (its `selection` slot); the Fields panel's parcel chart (its `chart`
 * slot) and the analysis block (through the feature's index.ts) open it with their chart. The dialog loads on first use.
 */
export default {
  feature: 'brief',
  shortcuts: [{ id: 'open-brief', keys: 'B', group: 'General', description: 'Print a one-page brief of the map (PDF or PNG)' }],
  statusItems: [{ id: 'brief', component: BriefLauncher }],
  fills: [
    { panel: 'library', slot: 'brief', load: () => import('./views/BriefMapButton.vue') },
    { panel: 'library', slot: 'layer', load: () => import('./views/BriefLayerButton.vue') },
    { panel: 'library', slot: 'selection', load: () => import('./views/BriefSelectionButton.vue') },
    { panel: 'fields', slot: 'chart', load: () => import('./views/BriefParcelButton.vue') },
  ],
} satisfies Contribution;
