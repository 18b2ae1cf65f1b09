import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KeyProbe } from '../../../main/profiles/index.js';

/** A fresh temporary directory standing in for Electron's userData. */
export function tempDir(prefix = 'swath-keychain-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Every file under `dir`, recursively, with its bytes as latin1 text (so any byte sequence is searchable). */
export function readAllFiles(dir: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) out.push(...readAllFiles(file));
    else out.push({ file, text: readFileSync(file, 'latin1') });
  }
  return out;
}

/** The probe the API client will provide, reduced to a real fetch of GET {base}/api/account/info. */
export const fetchAccountInfoProbe: KeyProbe = async ({ baseUrl, key, signal }) => {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/api/account/info`, { headers: { 'x-api-key': key, accept: 'application/json' }, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    const cause = (error as { cause?: { code?: string } }).cause;
    return { status: 'network', message: cause?.code ?? (error as Error).message };
  }
  const body = (await response.json().catch(() => null)) as { Error?: { Message?: string } } | null;
  if (response.status === 401 || response.status === 403) {
    return { status: 'auth', httpStatus: response.status, message: body?.Error?.Message };
  }
  if (response.ok) return { status: 'ok' };
  return { status: 'network', message: `HTTP ${response.status}` };
};
