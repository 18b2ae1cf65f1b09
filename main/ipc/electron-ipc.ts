import type { IpcMain, IpcMainEvent, IpcMainInvokeEvent } from 'electron';
import { CANCEL_CHANNEL, events, type EventName, type EventPayload } from '../../preload/contract';
import type { Dispatcher } from './dispatcher';

/** The part of `ipcMain` that {@link handle} needs (injected so tests need no Electron). */
export type IpcMainLike = Pick<IpcMain, 'handle' | 'removeHandler' | 'on' | 'removeListener'>;

/** The part of an IPC event's `sender` (a WebContents) the calls are scoped to. */
interface SenderLike {
  once?(event: 'destroyed', listener: () => void): unknown;
}

/** Anything events can be sent to: a WebContents, or a test double. */
export interface EventSink {
  send(channel: string, payload: unknown): void;
  isDestroyed(): boolean;
}

/**
 * Registers every channel of the dispatcher on `ipcMain`, and the cancel message; returns a function
 * that unregisters them. Calls are scoped to their WebContents: a window cancels only its own calls,
 * and its running calls are aborted when it is destroyed.
 */
export function handle(ipc: IpcMainLike, dispatcher: Dispatcher): () => void {
  const watched = new WeakSet<object>();
  const scope = (sender: SenderLike): object => {
    if (!watched.has(sender)) {
      watched.add(sender);
      sender.once?.('destroyed', () => dispatcher.release(sender));
    }
    return sender;
  };
  for (const channel of dispatcher.channels) {
    ipc.handle(channel, (event: IpcMainInvokeEvent, payload: unknown, options: unknown) =>
      // senderFrame is null once the frame navigated away or was destroyed; the dispatcher refuses that.
      dispatcher.dispatch(channel, payload, event.senderFrame?.url ?? null, undefined, { sender: scope(event.sender), options }),
    );
  }
  const onCancel = (event: IpcMainEvent, message: unknown): void => {
    dispatcher.cancel(event.sender, message, event.senderFrame?.url ?? null);
  };
  ipc.on(CANCEL_CHANNEL, onCancel);
  return () => {
    for (const channel of dispatcher.channels) ipc.removeHandler(channel);
    ipc.removeListener(CANCEL_CHANNEL, onCancel);
  };
}

/** Sends a contract event to a renderer after checking the payload against its schema. */
export function emit<E extends EventName>(target: EventSink, event: E, payload: EventPayload<E>): void {
  // A malformed event is a bug in main; failing here beats confusing the renderer.
  const checked = events[event].parse(payload);
  if (!target.isDestroyed()) target.send(event, checked);
}
