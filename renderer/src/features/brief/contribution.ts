import type { Contribution } from '../../platform/contributions';
import BriefLauncher from './views/BriefLauncher.vue';

/**
 * The one-page brief: a status bar button and the B shortcut open its dialog (the Library, the layer
 * card and the analysis block open it through the feature's index.ts); the dialog loads on first use.
 */
export default {
  feature: 'brief',
  shortcuts: [{ id: 'open-brief', keys: 'B', group: 'General', description: 'Print a one-page brief of the map (PDF or PNG)' }],
  statusItems: [{ id: 'brief', component: BriefLauncher }],
} satisfies Contribution;
