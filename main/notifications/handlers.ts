import type { HandlerTable } from '../ipc';
import { RateLimit } from '../shared/untrusted-text';
import type { Notifier } from './notifier';

/** The notifications:* channels: the preferences, and the notifications the window raises itself. */

/** The channels of notifications. */
export type NotificationChannel = 'notifications:prefs' | 'notifications:set-prefs' | 'notifications:show';

/** Notifications the window may raise itself (`notifications:show`) per minute; Swath's own (watches) are not counted. */
export const PAGE_NOTIFICATIONS_PER_MINUTE = 10;

/** What the notification channels need. */
export interface NotificationHandlerDeps {
  notifier: Notifier;
  log?: (line: string) => void;
  /** The app's clock (the window's rate limit). */
  now: () => number;
}

/** Notifications' slice of the channel table. */
export function notificationHandlers(deps: NotificationHandlerDeps): Pick<HandlerTable, NotificationChannel> {
  const { notifier } = deps;
  const pageNotifications = new RateLimit(PAGE_NOTIFICATIONS_PER_MINUTE, 60_000, deps.now);
  return {
    'notifications:prefs': () => notifier.get(),
    'notifications:set-prefs': (patch) => notifier.set(patch),
    // A page may raise a few notifications a minute, never a flood of OS notifications under Swath's name.
    'notifications:show': ({ kind, title, body, target }) => {
      if (!pageNotifications.take()) return { shown: false };
      const dropped = pageNotifications.takeRefused();
      if (dropped) deps.log?.(`notifications: ${dropped} the window asked for were not shown (at most ${PAGE_NOTIFICATIONS_PER_MINUTE} a minute).`);
      return { shown: notifier.notify({ kind, title, body, target }) };
    },
  };
}
