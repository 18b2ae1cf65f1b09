import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { z } from 'zod';
import { notificationPrefsSchema, type notificationSchema } from '../../preload/contract';
import { JsonStore, readJsonFile } from '../shared/files.js';
import type { Emit } from '../platform/emit';

/** Which notifications are shown. */
export type NotificationPrefs = z.infer<typeof notificationPrefsSchema>;
/** One notification as the window receives it. */
export type SwathNotification = z.infer<typeof notificationSchema>;
/** A notification before it is given an id and shown. */
export type NotificationInput = Omit<SwathNotification, 'id' | 'native'>;

/**
 * The host's native notification (Electron's `Notification`): shows it and calls `onClick` when
 * the analyst clicks it. Returns false when the system cannot show one. Absent in the browser host,
 * where the window shows it (the page's Notification API or an in-app toast).
 */
export type ShowNativeNotification = (n: { title: string; body: string }, onClick: () => void) => boolean;

const DEFAULTS: NotificationPrefs = { watchDownloaded: true, watchAttention: true, orderStatus: true, orderDeadline: true, fieldChange: true };

/**
 * Raises notifications: each kind can be switched off (userData/notifications.json). Every one
 * shown goes to the window as a `notification` event (marked `native` when the host already
 * showed it); a click on a native one sends the same event again with the target to open.
 */
export class Notifier {
  private prefs: NotificationPrefs = { ...DEFAULTS };
  private readonly store: JsonStore;

  private constructor(
    file: string,
    private readonly emit: Emit,
    private readonly native: ShowNativeNotification | undefined,
    private readonly onOpen: (n: SwathNotification) => void,
    private readonly offByPolicy: boolean,
  ) {
    this.store = new JsonStore(file, () => this.prefs);
  }

  /**
   * Loads the switches of `dir`. `onOpen` brings the window forward when a native notification is
   * clicked; `offByPolicy` (the admin policy's notifications: false) turns every one off.
   */
  static async open(dir: string, deps: { emit: Emit; showNative?: ShowNativeNotification; onOpen?: (n: SwathNotification) => void; offByPolicy?: boolean }): Promise<Notifier> {
    const n = new Notifier(path.join(dir, 'notifications.json'), deps.emit, deps.showNative, deps.onOpen ?? (() => undefined), deps.offByPolicy ?? false);
    const raw = await readJsonFile(n.store.file).catch(() => null);
    const parsed = notificationPrefsSchema.partial().safeParse(raw ?? {});
    if (parsed.success) n.prefs = { ...DEFAULTS, ...parsed.data };
    return n;
  }

  /** The switches (all off when the policy turns notifications off). */
  get(): NotificationPrefs {
    if (this.offByPolicy) return { watchDownloaded: false, watchAttention: false, orderStatus: false, orderDeadline: false, fieldChange: false };
    return { ...this.prefs };
  }

  /** Changes some switches. */
  async set(patch: Partial<NotificationPrefs>): Promise<NotificationPrefs> {
    this.prefs = { ...this.prefs, ...patch };
    await this.store.save();
    return this.get();
  }

  /** Shows a notification unless its kind is switched off; resolves whether it was shown. */
  notify(input: NotificationInput): boolean {
    if (this.offByPolicy || !this.prefs[input.kind]) return false;
    const base = { ...input, id: randomUUID() };
    let shown = false;
    if (this.native) {
      try {
        shown = this.native({ title: input.title, body: input.body }, () => {
          const opened = { ...base, native: true };
          this.onOpen(opened);
          this.emit('notification', { ...opened, open: true });
        });
      } catch {
        shown = false;
      }
    }
    this.emit('notification', { ...base, native: shown });
    return true;
  }
}
