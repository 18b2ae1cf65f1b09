import { defineStore } from 'pinia';
import { ref, watch, type WatchStopHandle } from 'vue';
import type { IpcError } from '../../../../preload/contract';

/** Id of a rail panel: a string a feature registered (platform/contributions.ts). */
export type PanelId = string;

/** A short message shown at the bottom of the map. */
export interface Toast {
  id: number;
  kind: 'info' | 'ok' | 'warn' | 'error';
  text: string;
}

/**
 * Window-level UI state: which panel is open, the downloads tray, dialogs
 * (API key, AOI import, shortcuts) and toasts. Panels call `goTo` to hand the
 * analyst over to another panel (e.g. "order this area first" -> Tasking).
 */
export const useUiStore = defineStore('ui', () => {
  const activePanel = ref<PanelId>('imagery');
  const panelOpen = ref(true);
  const trayOpen = ref(false);
  const helpOpen = ref(false);
  const importOpen = ref(false);
  const keyDialog = ref<{ open: boolean; reason: string | null }>({ open: false, reason: null });
  const toasts = ref<Toast[]>([]);
  let nextToast = 1;

  /** Opens a panel (and the side panel if it was hidden). */
  function goTo(id: PanelId): void {
    activePanel.value = id;
    panelOpen.value = true;
  }

  /** Rail click: opens a panel, or hides the side panel when it is already the open one. */
  function railClick(id: PanelId): void {
    if (activePanel.value === id && panelOpen.value) panelOpen.value = false;
    else goTo(id);
  }

  /** Opens the API key dialog with the reason the service gave. */
  function openKeyDialog(error?: IpcError | string | null): void {
    const reason = typeof error === 'string' ? error : error?.message ?? null;
    keyDialog.value = { open: true, reason };
  }

  function closeKeyDialog(): void {
    keyDialog.value = { open: false, reason: null };
  }

  /**
   * Shows a toast for a few seconds, or until `over()` turns true if that comes first (a toast
   * about something under way, such as a queued download, goes when it is over).
   */
  function notify(text: string, kind: Toast['kind'] = 'info', ms = 3500, over?: () => boolean): void {
    const id = nextToast++;
    toasts.value = [...toasts.value.slice(-3), { id, kind, text }];
    let stop: WatchStopHandle | null = null;
    const remove = () => {
      stop?.();
      toasts.value = toasts.value.filter((t) => t.id !== id);
    };
    setTimeout(remove, ms);
    if (over) stop = watch(over, (done) => done && remove(), { immediate: true });
  }

  return { activePanel, panelOpen, trayOpen, helpOpen, importOpen, keyDialog, toasts, goTo, railClick, openKeyDialog, closeKeyDialog, notify };
});
