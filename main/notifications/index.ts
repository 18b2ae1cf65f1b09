/** Notifications: native and in-app, their preferences, and the notifications:* channels. */
export { Notifier, type NotificationInput, type NotificationPrefs, type ShowNativeNotification, type SwathNotification } from './notifier';
export { PAGE_NOTIFICATIONS_PER_MINUTE, notificationHandlers, type NotificationChannel, type NotificationHandlerDeps } from './handlers';
