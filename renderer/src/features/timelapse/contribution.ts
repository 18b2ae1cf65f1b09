import type { Contribution } from '../../platform/contributions';
import TimelapseHost from './views/TimelapseHost.vue';

/**
 * Timelapse films: the Library's series row and list, the layer card and the analysis block open the
 * dialog through the feature's index.ts, the Library's selection through its `selection` slot; the status bar's item holds the dialog, which (with its
 * encoder) loads only once it is opened.
 */
export default {
  feature: 'timelapse',
  statusItems: [{ id: 'timelapse', component: TimelapseHost }],
  fills: [{ panel: 'library', slot: 'selection', load: () => import('./views/TimelapseSelectionButton.vue') }],
} satisfies Contribution;
