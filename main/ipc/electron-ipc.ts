import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { events, type EventName, type EventPayload } from '../../preload/contract';
import type { Dispatcher } from './dispatcher';

/** The part of `ipcMain` that {@link handle} needs (injected so tests need no Electron). */
export type IpcMainLike = Pick<IpcMain, 'handle' | 'removeHandler'>;

/** Anything events can be sent to: a WebContents, or a test double. */
export interface EventSink {
  send(channel: string, payload: unknown): void;
  isDestroyed(): boolean;
}

/** Registers every channel of the dispatcher on `ipcMain`; returns a function that unregisters them. */
export function handle(ipc: IpcMainLike, dispatcher: Dispatcher): () => void {
  for (const channel of dispatcher.channels) {
    ipc.handle(channel, (event: IpcMainInvokeEvent, payload: unknown) =>
      // senderFrame is null once the frame navigated away or was destroyed; the dispatcher refuses that.
      dispatcher.dispatch(channel, payload, event.senderFrame?.url ?? null),
    );
  }
  return () => {
    for (const channel of dispatcher.channels) ipc.removeHandler(channel);
  };
}

/** Sends a contract event to a renderer after checking the payload against its schema. */
export function emit<E extends EventName>(target: EventSink, event: E, payload: EventPayload<E>): void {
  // A malformed event is a bug in main; failing here beats confusing the renderer.
  const checked = events[event].parse(payload);
  if (!target.isDestroyed()) target.send(event, checked);
}
