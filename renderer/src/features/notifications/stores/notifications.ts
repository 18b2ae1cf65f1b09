import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import type { EventPayload, ResponseOf } from '../../../../../preload/contract';
import { ask, listen as follow } from '../../../platform/request';
import { useTaskingOrdersStore } from '../../tasking';
import { usePreviewStore } from '../../library';
import { hasPanel } from '../../../platform/contributions';
import { useUiStore } from '../../../platform/stores/ui';
import { useWatchesStore } from '../../watches';

/** One notification as main sent it. */
export type SwathNotice = EventPayload<'notification'>;
/** The switches of Settings. */
export type NotificationPrefs = ResponseOf<'notifications:prefs'>;

/** How often order statuses are checked in the background (the Tasking panel polls faster while open). */
export const ORDER_CHECK_MS = 5 * 60_000;
/** Up to this many status changes in one refresh are raised one by one; more become one summary. */
export const ORDER_NOTICES_EACH = 3;

/** "37 orders changed status: 30 Completed, 7 Failed." (new statuses, most frequent first; five at most, then "n other"). */
export function statusSummary(to: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const s of to) counts.set(s, (counts.get(s) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  // A hostile service's statuses stay within the channel's bounds (body ≤ 1,000 characters).
  const parts = sorted.slice(0, 5).map(([s, n]) => `${n} ${s.slice(0, 60)}`);
  const rest = sorted.slice(5).reduce((sum, [, n]) => sum + n, 0);
  if (rest) parts.push(`${rest} other`);
  return `${to.length} orders changed status: ${parts.join(', ')}.`;
}

/**
 * Notifications in the window: main's `notification` events become clickable cards over the map
 * (and, in a browser that allowed it, page notifications) unless the host already showed them
 * natively; a click opens the target panel (and layer). Order status changes and renewal deadlines
 * under 72 h, which the orders list reveals, are sent to main to be shown the same way.
 */
export const useNotificationsStore = defineStore('notifications', () => {
  const ui = useUiStore();
  const cards = ref<SwathNotice[]>([]);
  const prefs = ref<NotificationPrefs | null>(null);
  let started = false;
  let listening = false;
  let timer: ReturnType<typeof setInterval> | null = null;

  /** Opens what a notification is about. */
  function open(n: Pick<SwathNotice, 'target'> & { id?: string }): void {
    const t = n.target;
    // A target main names but no feature registered opens the first panel.
    ui.goTo(hasPanel(t.panel) ? t.panel : 'imagery');
    if (t.watchId) useWatchesStore().focusId = t.watchId;
    if (t.libraryId) void usePreviewStore().openOnMap(t.libraryId);
    if (t.orderId) useTaskingOrdersStore().select(t.orderId);
    if (n.id) dismiss(n.id);
  }

  function dismiss(id: string): void {
    cards.value = cards.value.filter((c) => c.id !== id);
  }

  function show(n: SwathNotice): void {
    if (n.open) return open(n);
    if (n.native) return;
    cards.value = [...cards.value.slice(-3), n];
    setTimeout(() => dismiss(n.id), 15_000);
    // A browser (the browser host) may also show it as a page notification, when the analyst allowed them.
    if (typeof Notification !== 'undefined' && Notification.permission === 'granted' && document.visibilityState !== 'visible') {
      try {
        const page = new Notification(n.title, { body: n.body, tag: n.id });
        page.onclick = () => {
          window.focus();
          open(n);
        };
      } catch {
        // Not offered here (e.g. Electron without permission): the card is enough.
      }
    }
  }

  async function loadPrefs(): Promise<void> {
    const r = await ask((bridge) => bridge.notificationsPrefs());
    if (r.ok) prefs.value = r.data;
  }

  async function setPref(patch: Partial<NotificationPrefs>): Promise<void> {
    const r = await ask((bridge) => bridge.notificationsSetPrefs(patch));
    if (r.ok) prefs.value = r.data;
  }

  /** Shows main's notifications from now on (what {@link start} does first; alone, it makes no store). */
  function listen(): void {
    if (listening) return;
    listening = true;
    follow('notification', show);
  }

  /** Listens for notifications and watches the orders list for status changes and deadlines. */
  function start(): void {
    if (started) return;
    started = true;
    listen();
    const orders = useTaskingOrdersStore();
    const toMain = (kind: 'orderStatus' | 'orderDeadline', title: string, body: string, orderId: string | null) =>
      void ask((bridge) => bridge.notificationsShow({ kind, title, body, target: { panel: 'tasking', ...(orderId ? { orderId } : {}) } }));
    // A change stays in statusChanges for a minute (the list's badge), so every refresh in that
    // minute (the panel's poll, the background check, a cancel) hands it over again: each change
    // (order and the time it was seen) is raised once. The changes new in one refresh are raised
    // together: one notification each when a few, one summary when many (one IPC call, not hundreds).
    const raised = new Set<string>();
    // A change handed over again is the same object (the store keeps it): skipped without building its id.
    const handled = new WeakSet<object>();
    watch(() => orders.statusChanges, (changes) => {
      const fresh: [string, { from: string; to: string }][] = [];
      for (const [key, c] of Object.entries(changes)) {
        if (handled.has(c)) continue;
        handled.add(c);
        const id = `${key}@${c.at}`;
        if (raised.has(id)) continue;
        raised.add(id);
        fresh.push([key, c]);
      }
      if (fresh.length > ORDER_NOTICES_EACH) {
        toMain('orderStatus', 'Order statuses changed', statusSummary(fresh.map(([, c]) => c.to)), null);
        return;
      }
      for (const [key, c] of fresh) toMain('orderStatus', 'Order status changed', `Order ${key}: ${c.from} → ${c.to}.`, key.startsWith('#') ? null : key);
    });
    const warned = new Set<string>();
    watch(() => orders.urgentRenewals, (list) => {
      for (const r of list) {
        const id = `${r.key}@${r.utc}`;
        if (warned.has(id)) continue;
        warned.add(id);
        toMain('orderDeadline', 'Recurring order renews soon', `Order ${r.orderId ?? r.key} renews at ${r.utc} (in ${r.countdown}); cancel it before then if it is no longer wanted.`, r.orderId);
      }
    });
    // In the background too: the orders list every few minutes.
    timer = setInterval(() => {
      if (!orders.list.loading) void orders.refresh();
    }, ORDER_CHECK_MS);
  }

  function stop(): void {
    if (timer) clearInterval(timer);
    timer = null;
  }

  return { cards, prefs, open, dismiss, show, listen, start, stop, loadPrefs, setPref };
});
