import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * A new folder in the shared temp directory that only this user can enter:
 * a fresh random name (mkdtemp: no other user can pre-create it or plant a
 * symlink there) with mode 0700, for the dev-only servers that keep files there.
 */
export async function privateTempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  // mkdtemp already asks for 0700; the explicit chmod also holds where a umask or platform differs.
  await chmod(dir, 0o700);
  return { path: dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * {@link privateTempDir}, made in one step of the event loop and removed at the latest when the
 * process exits (a process may exit before its user's `remove` has run, or finished).
 */
export function privateTempDirSync(prefix: string): { path: string; remove(): Promise<void> } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  chmodSync(dir, 0o700);
  const atExit = (): void => rmSync(dir, { recursive: true, force: true });
  process.once('exit', atExit);
  return {
    path: dir,
    remove: async () => {
      await rm(dir, { recursive: true, force: true });
      process.off('exit', atExit);
    },
  };
}
