import { vi } from 'vitest';
import type { fakeElectron } from './fake-electron';

/**
 * Boots main/index.ts against the fake Electron (the test file must `vi.mock('electron', ...)`
 * with ./fake-electron; a real require('electron') would try to download Electron).
 */

/** The fake `electron` module. */
export type FakeElectron = typeof fakeElectron;
type InvokeListener = (event: unknown, payload: unknown) => Promise<unknown>;

/** The renderer's URL, the one sender the IPC policy trusts in an installed build. */
export const RENDERER_URL = 'app://swath/index.html';

/** The fakes a main was booted on that has not been quit yet. */
const running: FakeElectron[] = [];

/**
 * Quits the mains this file booted, as Electron does: emits will-quit and waits for main's own
 * `app.quit()` once it closed its app core. Called before each boot and in the file's afterAll,
 * so no app core of a finished test keeps writing into a folder (its state files, logs, the
 * update state) after the test, or after the file's afterAll removed the folder.
 */
export async function quitMains(): Promise<void> {
  const failures: unknown[] = [];
  for (const electron of running.splice(0)) await quitMain(electron).catch((e: unknown) => failures.push(e));
  // Every main was asked to quit before one that did not is reported.
  if (failures.length) throw failures[0];
}

/** Quits one booted main and waits for it (see {@link quitMains}). */
async function quitMain(electron: FakeElectron): Promise<void> {
  const { app } = electron;
  // Before ready no app core exists; main only holds its quit until the core it made closed.
  if (!app.wasReady) return;
  const quits = app.quit.mock.calls.length;
  // Not held: main had quit already (or never mounted its quit handler).
  if (!app.emitWillQuit()) return;
  await vi.waitFor(() => {
    if (app.quit.mock.calls.length === quits) throw new Error('main has not closed its app core yet');
  }, { timeout: 10_000, interval: 10 });
}

/**
 * Quits the mains booted before (see {@link quitMains}), resets the fake, lets `prepare` set it up
 * (isPackaged…), then runs main/index.ts (call vi.resetModules() before).
 */
export async function bootMain(prepare?: (electron: FakeElectron) => void): Promise<FakeElectron> {
  await quitMains();
  const electron = (await import('electron')) as unknown as FakeElectron;
  electron.__reset();
  prepare?.(electron);
  running.push(electron);
  await import('../../../main/index');
  return electron;
}

/** Emits ready and waits until main mounted IPC (or quit). */
export async function mainReady(electron: FakeElectron): Promise<void> {
  (electron.app as unknown as { readyResolve: () => void }).readyResolve();
  // The app core opens its state files first; wait until main mounted IPC (or quit).
  await vi.waitFor(() => {
    if (electron.ipcMain.handle.mock.calls.length === 0 && electron.app.quit.mock.calls.length === 0) throw new Error('not ready yet');
  }, { timeout: 5_000, interval: 10 });
  await new Promise((resolve) => setTimeout(resolve, 0));
}

/** The listener main registered for `channel`. */
export function ipcListener(electron: FakeElectron, channel: string): InvokeListener {
  const call = electron.ipcMain.handle.mock.calls.find((c) => c[0] === channel);
  if (!call) throw new Error(`${channel} is not registered`);
  return call[1] as InvokeListener;
}

/** Calls `channel` as the renderer would. */
export function invokeMain(electron: FakeElectron, channel: string, payload: unknown = {}): Promise<any> {
  return ipcListener(electron, channel)({ sender: {}, senderFrame: { url: RENDERER_URL } }, payload) as Promise<any>;
}
