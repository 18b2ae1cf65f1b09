import { reactive, type App } from 'vue';
import { ask } from '../request';

/**
 * Uncaught renderer errors: each is logged by main (through the same
 * redaction as every log line), and an error in rendering or a handler shows
 * the recoverable error view instead of leaving a blank window.
 */

/** The error the error view shows; null while all is well. */
export const crash = reactive<{ error: { message: string; stack: string | null } | null }>({ error: null });

type Source = 'vue' | 'window' | 'promise';

function normalise(error: unknown): { message: string; stack: string | null } {
  if (error instanceof Error) return { message: error.message || error.name, stack: error.stack ?? null };
  return { message: typeof error === 'string' ? error : JSON.stringify(error) ?? String(error), stack: null };
}

/** Logs an uncaught error in main; errors from rendering and from the window also open the error view. */
export function reportError(source: Source, error: unknown, info?: string): void {
  const e = normalise(error);
  // A rejected promise nobody awaited is logged, but the UI that started it already shows its own failure.
  if (source !== 'promise') crash.error = e;
  // Without the bridge there is no log to write to (the request answers 'io'); the view still shows.
  void ask((bridge) =>
    bridge.appReportError({ source, message: e.message.slice(0, 4_000), ...(e.stack ? { stack: e.stack.slice(0, 20_000) } : {}), ...(info ? { info: info.slice(0, 500) } : {}) }),
  );
}

/** Installs Vue's error handler and the window's error and unhandledrejection listeners. */
export function installErrorHandlers(app: App, target: Window = window): void {
  app.config.errorHandler = (error, _instance, info) => reportError('vue', error, info);
  target.addEventListener('error', (event) => reportError('window', event.error ?? event.message));
  target.addEventListener('unhandledrejection', (event) => reportError('promise', event.reason));
}
