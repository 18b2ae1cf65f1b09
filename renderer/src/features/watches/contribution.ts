import { getActivePinia } from 'pinia';
import type { Contribution } from '../../platform/contributions';

/** Watches: its panel; the watch list reaches the window whatever panel is open. */
export default {
  feature: 'watches',
  panel: {
    id: 'watches',
    name: 'Watches',
    icon: 'watch',
    keys: '8',
    summary: 'Keep the library complete for an order or an area: every new date downloaded, within a budget.',
    load: () => import('./views/WatchesPanel.vue'),
  },
  start: () => {
    // This window's store registry, for a store whose code loads later.
    const pinia = getActivePinia();
    void import('./stores/watches').then(({ useWatchesStore }) => useWatchesStore(pinia).start());
  },
} satisfies Contribution;
