/** The preview engine's module (./engine.ts), loaded on demand. */
export type PreviewEngine = typeof import('./engine');

let loading: Promise<PreviewEngine> | null = null;

/** Loads the preview engine once (a failed load is tried again on the next call). */
export function loadPreviewEngine(): Promise<PreviewEngine> {
  loading ??= import('./engine').catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}

/** Starts loading the engine in the background (the map calls it when idle after its first frame). */
export function prefetchPreviewEngine(): void {
  void loadPreviewEngine().catch(() => undefined);
}
