import { redactionMark } from '../../preload/contract/redaction.js';

/**
 * The secret registry: the keys (and other credentials) main holds, so every egress can mask them.
 *
 * There is no process-wide registry. The composition root (main/app/app.ts `createApp`, or the
 * Electron entry, which also hands it to its log) creates one and passes it to everything that learns
 * a key (the profile store, the API transport, the team library) and to every egress
 * that masks (the dispatcher, the sealed event sink, the log, diagnostics). Two app cores in one
 * process each have their own and never learn each other's keys.
 */

/** Strings shorter than this are never registered: masking them everywhere would garble ordinary text. */
export const MIN_SECRET_LENGTH = 4;

/** The keys main holds, so they can be masked out of anything. */
export class SecretRegistry {
  private readonly secrets = new Set<string>();
  // Longest first, so a key that contains another key is masked whole.
  private ordered: string[] = [];

  /** Adds a key (and its trimmed form); blanks and very short strings are ignored. */
  add(secret: string | null | undefined): void {
    if (typeof secret !== 'string') return;
    let changed = false;
    for (const s of new Set([secret, secret.trim()])) {
      if (s.length >= MIN_SECRET_LENGTH && !this.secrets.has(s)) {
        this.secrets.add(s);
        changed = true;
      }
    }
    if (changed) this.ordered = [...this.secrets].sort((a, b) => b.length - a.length);
  }

  /** How many keys are registered. */
  get size(): number {
    return this.secrets.size;
  }

  /** Replaces every occurrence of every registered key in `text` with its mark. */
  redactText(text: string): string {
    let out = text;
    for (const s of this.ordered) if (out.includes(s)) out = out.split(s).join(redactionMark(s));
    return out;
  }

  /** Whether `text` contains a registered key. */
  leaks(text: string): boolean {
    return this.ordered.some((s) => text.includes(s));
  }

  /** Whether JSON text contains a registered key, as it is or as JSON escapes it (a key with a quote or a backslash). */
  leaksInJson(text: string): boolean {
    return this.ordered.some((s) => text.includes(s) || text.includes(JSON.stringify(s).slice(1, -1)));
  }
}
