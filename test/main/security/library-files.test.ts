import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConfirmRequest } from '../../../main/platform/confirm';
import { fixturePath } from '../../fixtures/rasters';
import { startTestApp, type TestApp } from './helpers.js';

// The renderer names paths, main decides which files may be read, recorded or deleted.

describe('library import and delete, as a (possibly compromised) renderer asks', () => {
  describe('browser host (no native dialog)', () => {
    let a: TestApp;
    let files: string;
    beforeAll(async () => {
      a = await startTestApp();
      files = path.join(a.dir, 'files');
      mkdirSync(files);
    });
    afterAll(() => a.close());

    it('imports only .tif/.tiff names: a TIFF-like file under another name is refused before it is read', async () => {
      const disguised = path.join(files, 'id_rsa');
      copyFileSync(fixturePath('utm33n-cog'), disguised);
      const secret = path.join(files, 'notes.txt');
      writeFileSync(secret, 'II*\0 not for Swath');
      for (const p of [disguised, secret, `${disguised}.tif.bak`]) {
        const res = await a.call('library:import', { paths: [p] });
        expect(res, p).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringMatching(/only \.tif and \.tiff/) } });
      }
      expect((await a.call('library:query', { limit: 500 })).data.entries).toEqual([]);
      const upper = path.join(files, 'scene.TIFF');
      copyFileSync(fixturePath('utm33n-cog'), upper);
      expect((await a.call('library:import', { paths: [upper] })).ok).toBe(true);
    });

    it('refuses to delete an imported file, says why, and keeps both file and entry', async () => {
      const mine = path.join(files, 'analyst-own.tif');
      copyFileSync(fixturePath('utm33n-cog'), mine);
      const entry = (await a.call('library:import', { paths: [mine] })).data.entries[0];
      const res = await a.call('library:remove', { id: entry.id, deleteFile: true });
      expect(res).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringMatching(/imported, not downloaded by Swath/) } });
      expect(existsSync(mine)).toBe(true);
      expect((await a.call('library:query', { limit: 500 })).data.entries.some((e: { id: string }) => e.id === entry.id)).toBe(true);
      // Forgetting it without touching the file is fine.
      expect((await a.call('library:remove', { id: entry.id, deleteFile: false })).ok).toBe(true);
      expect(existsSync(mine)).toBe(true);
    });

    it('deletes a file Swath downloaded itself without asking', async () => {
      const search = await a.call('imagery:search', { request: { Wkt: 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))', From: '2026-08-01', Until: null } });
      const date = search.data.data.ModelImageDates[0].DatesByGeog[0].Dates.at(-1);
      const job = await a.call('downloads:enqueue', { kind: 'composite', request: { Wkt: 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))', Date: date, Model: 'Stratus2', Resolution: 160, EpsgProjection: 32633, Bandnames: 'rgb' } });
      await expect.poll(async () => (await a.call('downloads:list')).data.jobs.find((j: { id: string }) => j.id === job.data.id).state, { timeout: 20_000 }).toBe('done');
      const file = (await a.call('downloads:list')).data.jobs.find((j: { id: string }) => j.id === job.data.id).file;
      const entry = (await a.call('library:query', { limit: 500 })).data.entries.find((e: { path: string }) => e.path === file);
      expect(entry.source).toBe('download');
      expect((await a.call('library:remove', { id: entry.id, deleteFile: true })).ok).toBe(true);
      expect(existsSync(file)).toBe(false);
    });
  });

  describe('Electron host (main asks through its own dialog)', () => {
    const answers: boolean[] = [];
    const confirm = vi.fn(async (_r: ConfirmRequest) => answers.shift() ?? false);
    let a: TestApp;
    beforeAll(async () => { a = await startTestApp({ confirm }); });
    afterAll(() => a.close());

    it('deletes an imported file only when the analyst confirms in main', async () => {
      const dir = path.join(a.dir, 'files');
      mkdirSync(dir);
      const f = path.join(dir, 'imported.tif');
      copyFileSync(fixturePath('utm33n-cog'), f);
      const entry = (await a.call('library:import', { paths: [f] })).data.entries[0];
      answers.push(false);
      expect(await a.call('library:remove', { id: entry.id, deleteFile: true })).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
      expect(existsSync(f)).toBe(true);
      expect(confirm.mock.calls[0]![0]).toMatchObject({ confirmLabel: 'Delete file', detail: expect.stringContaining(f) });
      answers.push(true);
      expect((await a.call('library:remove', { id: entry.id, deleteFile: true })).ok).toBe(true);
      expect(existsSync(f)).toBe(false);
    });
  });
});
