/**
 * A task that runs once at a time: asked while it runs, it runs once more after (however often it
 * was asked meanwhile), so the last answer is never older than the last ask, and never two at once.
 */
export function rerunning(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await task();
      } while (again);
    })().finally(() => {
      running = null;
    });
    return running;
  };
}
