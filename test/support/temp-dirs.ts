import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The temp folders a test file made, kept on the global object: a file that resets its modules loads
 * this module again, and its one afterAll must still find them all.
 */
function made(): string[] {
  const g = globalThis as { __swathTestTempDirs?: string[] };
  return (g.__swathTestTempDirs ??= []);
}

/** A fresh folder in the temp directory, removed by {@link removeTempDirs}. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made().push(dir);
  return dir;
}

/** Removes every folder {@link makeTempDir} made (a test file's afterAll, once what used them is shut). */
export function removeTempDirs(): void {
  for (const dir of made().splice(0)) rmSync(dir, { recursive: true, force: true });
}
