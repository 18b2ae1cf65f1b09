/**
 * Background priority for a worker thread's own work, so main's event loop (and the window)
 * wins the cores whenever it has something to do. Linux gives each thread its own nice value
 * (setpriority on the thread's id); elsewhere setpriority takes a process, so nothing is changed.
 */
import { readlinkSync } from 'node:fs';
import os from 'node:os';

/** The nice value of a background thread: scheduled about a tenth as often as main's when both wait for a core. */
export const BACKGROUND_NICE = 10;

/** Whether this thread's priority was lowered (module state: one per thread's isolate). */
let lowered: boolean | null = null;

/**
 * Lowers the calling thread's priority to {@link BACKGROUND_NICE} (never raises it, never touches
 * main's thread), once per thread; whether it did.
 */
export function lowerThreadPriority(): boolean {
  lowered ??= lower();
  return lowered;
}

function lower(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // "<pid>/task/<tid>": the calling thread's id.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0 || tid === process.pid) return false;
    if (os.getPriority(tid) < BACKGROUND_NICE) os.setPriority(tid, BACKGROUND_NICE);
    return true;
  } catch {
    return false;
  }
}
