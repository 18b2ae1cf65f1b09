import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateTempDir } from '../../../main/shared/private-temp';
import { startSimulator } from '../../../simulator';

// No fixed folder names in the shared temp directory.

describe('private temp folders', () => {
  it('are new, random and 0700 each time', async () => {
    const a = await privateTempDir('swath-sec-test-');
    const b = await privateTempDir('swath-sec-test-');
    try {
      expect(a.path).not.toBe(b.path);
      expect(path.dirname(a.path)).toBe(os.tmpdir());
      if (process.platform !== 'win32') expect(statSync(a.path).mode & 0o777).toBe(0o700);
    } finally {
      await a.remove();
      await b.remove();
    }
    expect(existsSync(a.path)).toBe(false);
  });

  it('the simulator without --cache uses its own 0700 folder, not one another user planted, and removes it', async () => {
    // Another local user's folder under the old fixed name must not be used.
    const planted = path.join(os.tmpdir(), 'swath-sim-cache');
    const plantedHere = !existsSync(planted);
    if (plantedHere) mkdirSync(planted, { mode: 0o777 });
    const sim = await startSimulator({ port: 0 });
    try {
      const dir = sim.cacheDir;
      expect(path.dirname(dir)).toBe(os.tmpdir());
      expect(path.basename(dir)).toMatch(/^swath-sim-cache-.+/);
      if (process.platform !== 'win32') expect(statSync(dir).mode & 0o777).toBe(0o700);
      await sim.close();
      expect(existsSync(dir)).toBe(false);
    } finally {
      await sim.close();
      if (plantedHere) rmSync(planted, { recursive: true, force: true });
    }
  });
  it('a simulator that cannot start (options refused, port taken) leaves no folder behind', async () => {
    // The temp folder of this test alone (os.tmpdir() reads TMPDIR), so other files' simulators are not counted.
    const own = mkdtempSync(path.join(os.tmpdir(), 'swath-temp-dirs-'));
    const saved = process.env.TMPDIR;
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      process.env.TMPDIR = own;
      expect(os.tmpdir()).toBe(own);
      await expect(startSimulator({ shapes: 'fancy' as never })).rejects.toThrow(/production or variant/);
      const port = (taken.address() as { port: number }).port;
      await expect(startSimulator({ port })).rejects.toThrow(/EADDRINUSE/);
      expect(readdirSync(own)).toEqual([]);
      // And one that starts makes its folder there, and removes it when closed.
      const sim = await startSimulator({ port: 0 });
      expect(readdirSync(own)).toEqual([path.basename(sim.cacheDir)]);
      await sim.close();
      expect(readdirSync(own)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await new Promise((resolve) => taken.close(resolve));
      rmSync(own, { recursive: true, force: true });
    }
  });
});
