/**
 * The one way downloads reach the library. The download queue depends on {@link DownloadSink};
 * the catalog implements it. Nothing in library/ imports downloads/.
 */

/** Which imagery operation produced a download. */
export type DownloadKind = 'composite' | 'tile' | 'minitile';

/** Every download kind, in display order. */
export const DOWNLOAD_KINDS: readonly DownloadKind[] = ['composite', 'tile', 'minitile'];

/** What the download queue hands over when a file is finished. */
export interface DownloadedRaster {
  path: string;
  size: number;
  /** Null: the catalog hashes the file in the background after recording it. */
  sha256: string | null;
  kind: DownloadKind;
  request: Record<string, unknown>;
  /**
   * The file's whole content when the writer kept it (a file of at most READ_WHOLE_BYTES): its header
   * is read from these bytes, not from the disk again (see DownloadedFile.content).
   */
  content?: Uint8Array;
}

/** Where finished downloads are recorded. */
export interface DownloadSink {
  /** Records a file the queue has just verified and published; resolves to its library entry's id. */
  addDownload(d: DownloadedRaster, signal: AbortSignal): Promise<{ id: string }>;
  /** Whether a library entry (in any folder) already has this file name, compared case-insensitively. */
  hasFileName?(name: string): boolean;
}

const SECRET_NAME = /^(x-)?api[-_]?key$|^authorization$|^password$|^secret$|^token$/i;

/** A deep copy of a request body without any credential-like property (x-api-key, ApiKey, Authorization, …). */
export function withoutSecrets(body: Record<string, unknown>): Record<string, unknown> {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (!SECRET_NAME.test(k)) out[k] = strip(x);
      return out;
    }
    return v;
  };
  return strip(body) as Record<string, unknown>;
}
