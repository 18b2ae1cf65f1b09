import type { ShowNativeNotification } from './notifier';

/** The part of Electron's `Notification` class Swath uses (injected, so this stays testable without Electron). */
export interface NotificationClass {
  isSupported(): boolean;
  new (options: { title: string; body: string; silent?: boolean }): { on(event: 'click', listener: () => void): unknown; show(): void };
}

/**
 * The Electron host's native notifications: one OS notification per call, whose click brings the
 * window forward and opens the notification's target (the notifier does that through `onClick`).
 * False when the system has no notifications; the window then shows its own.
 */
export function electronNotifications(Notification: NotificationClass): ShowNativeNotification {
  const shown = new Set<object>();
  return ({ title, body }, onClick) => {
    if (!Notification.isSupported()) return false;
    const n = new Notification({ title, body });
    // Kept referenced until clicked or the next ones: a collected notification loses its click handler.
    shown.add(n);
    if (shown.size > 20) shown.delete(shown.values().next().value!);
    n.on('click', () => {
      shown.delete(n);
      onClick();
    });
    n.show();
    return true;
  };
}
