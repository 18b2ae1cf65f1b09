import { sealForRenderer } from '../api/redact';
import type { Emit } from '../platform/emit';
import type { SecretRegistry } from '../platform/secrets';

/**
 * The host's event sink with every payload sealed for the renderer, as the dispatcher seals every
 * answer: a payload too deep to check, or still holding a key main knows, never leaves main; it is
 * logged (`refused`) instead. `secrets` is the app's registry.
 */
export function sealedEmit(sink: Emit, secrets: SecretRegistry, refused: (line: string) => void): Emit {
  return (event, raw) => {
    let payload: typeof raw;
    try {
      payload = sealForRenderer(raw, secrets, `The event "${event}"`);
    } catch (error) {
      // Too deep to check, or still holding a key: the window never gets it.
      refused(`${(error as Error).message} It was not sent to the window.`);
      return;
    }
    sink(event, payload);
  };
}
