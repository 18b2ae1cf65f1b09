import type { IpcError } from '../../../../preload/contract';

/**
 * What every request's outcome means to a view, shared by the stores' request module
 * (`platform/request.ts`) and the panels: where an 'auth' failure goes, which failures offer Retry,
 * and which field errors belong next to which input.
 */

let authHandler: ((error: IpcError) => void) | null = null;

/** Installs what every request does on an 'auth' failure (the shell opens the key dialog). */
export function setAuthHandler(handler: ((error: IpcError) => void) | null): void {
  authHandler = handler;
}

/** Hands an 'auth' failure to the installed handler (none: nothing happens). */
export function routeAuth(error: IpcError): void {
  authHandler?.(error);
}

/** True when a failure is worth a Retry button (network or host trouble, not a refusal). */
export function isRetryable(error: IpcError | null): boolean {
  return !!error && (error.kind === 'transient' || error.kind === 'io' || error.kind === 'rate-limited');
}

/** Field reasons for one property, matched case-insensitively and by prefix ("GeoJson.coordinates" counts for "GeoJson"). */
export function reasonsFor(fields: Record<string, string[]> | null | undefined, name: string): string[] {
  if (!fields) return [];
  const lower = name.toLowerCase();
  const out: string[] = [];
  for (const [key, reasons] of Object.entries(fields)) {
    const k = key.toLowerCase().replace(/^\$\.?|^body\./, '');
    if (k === lower || k.startsWith(`${lower}.`) || k.startsWith(`${lower}[`)) out.push(...reasons);
  }
  return out;
}
