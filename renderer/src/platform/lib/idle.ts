/**
 * Scheduling for work the first frames and the analyst's first clicks do not wait for.
 */

/** Runs `cb` when the window is next idle, or after `timeoutMs` at the latest (the next task without requestIdleCallback, as in jsdom). */
export function whenIdle(cb: () => void, timeoutMs = 2000): void {
  if (typeof window !== 'undefined' && 'requestIdleCallback' in window) window.requestIdleCallback(() => cb(), { timeout: timeoutMs });
  else setTimeout(cb, 0);
}

/**
 * Runs `cb` once the start has settled: `delayMs` after now, when the window is idle. For detail
 * (the finer coastline, water, the notifications' watchers) that would otherwise run in the idle
 * moments between the analyst's first clicks and hold each click up by its longest task.
 */
export function afterStart(cb: () => void, delayMs = 2000): void {
  setTimeout(() => whenIdle(cb), delayMs);
}

/** Hands the main thread back to the window (input, rendering) and resumes right after. */
export function yieldToWindow(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (scheduler?.yield) return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * `items.map(fn)` in slices of about `budgetMs`, yielding to the window between slices: a long
 * conversion (thousands of coastline features) never becomes one long task.
 */
export async function mapInSlices<T, U>(items: readonly T[], fn: (item: T, index: number) => U, budgetMs = 8): Promise<U[]> {
  const out: U[] = [];
  let start = performance.now();
  for (let i = 0; i < items.length; i++) {
    out.push(fn(items[i]!, i));
    if (performance.now() - start >= budgetMs) {
      await yieldToWindow();
      start = performance.now();
    }
  }
  return out;
}
