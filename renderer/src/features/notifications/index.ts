/** The notifications feature's public surface: what other features may use of it. */
export { useNotificationsStore, type NotificationPrefs } from './stores/notifications';
