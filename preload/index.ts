import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { CANCEL_CHANNEL, callIdSchema, channelNames, eventNames, methodName, type CallOptions, type EventName, type IpcError, type Result } from './contract';

/**
 * The sandboxed preload: exposes `window.swath` with one function per contract
 * channel plus `on` and `cancel`. Only plain functions cross the bridge, never ipcRenderer.
 */

function transportError(error: unknown): Result<never> {
  const message = error instanceof Error ? error.message : String(error);
  const failure: IpcError = { kind: 'io', message: `IPC failed: ${message}` };
  return { ok: false, error: failure };
}

/** Builds the object exposed as `window.swath` (exported for tests; the renderer sees only the bridged copy). */
export function buildApi(): Record<string, unknown> {
  const api: Record<string, unknown> = {};
  for (const channel of channelNames) {
    // Errors are values at the boundary, so even a transport failure resolves to a Result.
    // The call options (a call id to cancel it by) go as they are: main validates them like the request.
    api[methodName(channel)] = (request?: unknown, options?: CallOptions): Promise<Result<unknown>> =>
      ipcRenderer.invoke(channel, request ?? {}, options).then((result: Result<unknown>) => result, transportError);
  }
  api.cancel = (callId: unknown): void => {
    if (!callIdSchema.safeParse(callId).success) throw new TypeError('A call id is a positive integer.');
    ipcRenderer.send(CANCEL_CHANNEL, { callId });
  };
  api.on = (event: EventName, listener: (payload: unknown) => void): (() => void) => {
    if (!eventNames.includes(event)) throw new Error(`Unknown event "${String(event)}".`);
    if (typeof listener !== 'function') throw new TypeError('The listener must be a function.');
    // The IpcRendererEvent holds `sender` (ipcRenderer itself); only the payload may reach the page.
    const wrapped = (_event: IpcRendererEvent, payload: unknown): void => listener(payload);
    ipcRenderer.on(event, wrapped);
    return () => {
      ipcRenderer.removeListener(event, wrapped);
    };
  };
  // Only a path for a File object the user dropped: the page never gets to name arbitrary paths here.
  api.pathForFile = (file: unknown): string => (file instanceof File ? webUtils.getPathForFile(file) : '');
  return api;
}

contextBridge.exposeInMainWorld('swath', buildApi());
