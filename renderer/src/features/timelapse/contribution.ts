import type { Contribution } from '../../platform/contributions';
import TimelapseHost from './views/TimelapseHost.vue';

/**
 * Timelapse films: the Library's rows shown, series rows, layer cards and selection open the dialog
 * through the panel's `shown`, `series`, `layer` and `selection` slots (the Library never imports
 * this feature), the analysis block through the feature's index.ts; the status bar's item holds
 * the dialog, which (with its encoder) loads only once it is opened.
 */
export default {
  feature: 'timelapse',
  statusItems: [{ id: 'timelapse', component: TimelapseHost }],
  fills: [
    { panel: 'library', slot: 'shown', load: () => import('./views/TimelapseShownButton.vue') },
    { panel: 'library', slot: 'series', load: () => import('./views/TimelapseSeriesButton.vue') },
    { panel: 'library', slot: 'layer', load: () => import('./views/TimelapseLayerButton.vue') },
    { panel: 'library', slot: 'selection', load: () => import('./views/TimelapseSelectionButton.vue') },
  ],
} satisfies Contribution;
