import { getActivePinia } from 'pinia';
import type { Contribution } from '../../platform/contributions';
import { afterStart } from '../../platform/lib/idle';

/**
 * Notifications (watches, orders) reach the window whatever panel is open. The orders' watchers once
 * the start has settled (the orders store reads the service's schemas when it is made): the panel
 * asked for and the analyst's first clicks come first.
 */
export default {
  feature: 'notifications',
  start: () => {
    const pinia = getActivePinia();
    void import('./stores/notifications').then(({ useNotificationsStore }) => {
      const notifications = useNotificationsStore(pinia);
      notifications.listen();
      afterStart(() => notifications.start());
    });
  },
} satisfies Contribution;
