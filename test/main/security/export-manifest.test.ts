import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_MANIFEST } from '../../../main/shared/atomic-tree';
import { fixturePath } from '../../fixtures/rasters';
import { startTestApp, type TestApp } from './helpers.js';

// A re-export replaces only what Swath wrote; a folder holding anything else is refused.

describe('exporting a STAC catalog into a folder that already holds things', () => {
  let t: TestApp;
  /** Where the (fake) save dialog points the export next. */
  let target = '';
  const exportTo = async (dir: string) => {
    target = dir;
    return t.call('export:stac', {});
  };
  const manifestPaths = (dir: string): string[] => (JSON.parse(readFileSync(path.join(dir, EXPORT_MANIFEST), 'utf8')) as { files: { path: string }[] }).files.map((f) => f.path);

  beforeAll(async () => {
    t = await startTestApp({ chooseExportPath: async () => target });
    expect((await t.call('library:import', { paths: [fixturePath('utm33n-cog')] })).ok).toBe(true);
  });
  afterAll(() => t.close());

  it('refuses a folder with analyst-notes.docx and rasters/scene.tif beside an earlier export, names them, and keeps everything (the reproduction)', async () => {
    const dir = path.join(t.dir, 'share', 'catalog');
    expect((await exportTo(dir)).ok).toBe(true);
    const earlier = readFileSync(path.join(dir, 'catalog.json'), 'utf8');
    writeFileSync(path.join(dir, 'analyst-notes.docx'), 'two weeks of notes');
    mkdirSync(path.join(dir, 'rasters'));
    writeFileSync(path.join(dir, 'rasters', 'scene.tif'), 'II*\0 a raster');

    const res = await exportTo(dir);
    expect(res).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringContaining('analyst-notes.docx'), fields: { folder: [expect.stringContaining('rasters/scene.tif')] } } });
    expect(res.error.message).toMatch(/rasters\/scene\.tif.*did not write|did not write.*rasters\/scene\.tif/s);
    expect(readFileSync(path.join(dir, 'analyst-notes.docx'), 'utf8')).toBe('two weeks of notes');
    expect(existsSync(path.join(dir, 'rasters', 'scene.tif'))).toBe(true);
    expect(readFileSync(path.join(dir, 'catalog.json'), 'utf8')).toBe(earlier);
    // Nothing left behind beside it either (no staging or old folder).
    expect(readdirSync(path.dirname(dir)).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('replaces an earlier export that holds only its own files, removing exactly those', async () => {
    const dir = path.join(t.dir, 'share', 'clean');
    expect((await exportTo(dir)).ok).toBe(true);
    const first = manifestPaths(dir);
    expect(first).toContain('catalog.json');
    const again = await exportTo(dir);
    expect(again.ok).toBe(true);
    expect(manifestPaths(dir).sort()).toEqual(first.sort());
    expect(readdirSync(dir).sort()).toEqual([...new Set(first.map((p) => p.split('/')[0]!)), EXPORT_MANIFEST].sort());
    expect(readdirSync(path.dirname(dir)).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('refuses when a file the earlier export wrote was changed since (an analyst edited catalog.json)', async () => {
    const dir = path.join(t.dir, 'share', 'edited');
    expect((await exportTo(dir)).ok).toBe(true);
    writeFileSync(path.join(dir, 'catalog.json'), '{"id":"swath-library-edited","note":"my edits"}');
    const res = await exportTo(dir);
    expect(res).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringContaining('catalog.json') } });
    expect(readFileSync(path.join(dir, 'catalog.json'), 'utf8')).toContain('my edits');
  });

  it('refuses a folder with a Swath-looking catalog but no manifest (what the old rule replaced whole)', async () => {
    const dir = path.join(t.dir, 'share', 'legacy');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify({ type: 'Catalog', id: 'swath-library-20260101T000000Z', links: [] }));
    writeFileSync(path.join(dir, 'analyst-notes.docx'), 'notes');
    const res = await exportTo(dir);
    expect(res).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringMatching(/analyst-notes\.docx.*catalog\.json|catalog\.json.*analyst-notes\.docx/) } });
    expect(readdirSync(dir).sort()).toEqual(['analyst-notes.docx', 'catalog.json']);
  });

  it('a planted manifest cannot make it delete other files: wrong checksums, paths out of the folder, links', async () => {
    const dir = path.join(t.dir, 'share', 'planted');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'analyst-notes.docx'), 'notes');
    const outside = path.join(t.dir, 'share', 'outside.txt');
    writeFileSync(outside, 'outside');
    const zero = '0'.repeat(64);
    writeFileSync(path.join(dir, EXPORT_MANIFEST), JSON.stringify({ swath: 'export-manifest', version: 1, files: [{ path: 'analyst-notes.docx', size: 5, sha256: zero }] }));
    expect(await exportTo(dir)).toMatchObject({ ok: false, error: { message: expect.stringContaining('analyst-notes.docx') } });
    writeFileSync(path.join(dir, EXPORT_MANIFEST), JSON.stringify({ swath: 'export-manifest', version: 1, files: [{ path: '../outside.txt', size: 7, sha256: zero }] }));
    expect((await exportTo(dir)).ok).toBe(false);
    rmSync(path.join(dir, 'analyst-notes.docx'));
    symlinkSync(outside, path.join(dir, 'link.txt'));
    expect(await exportTo(dir)).toMatchObject({ ok: false, error: { message: expect.stringContaining('link.txt') } });
    expect(readFileSync(outside, 'utf8')).toBe('outside');
    expect(readdirSync(dir).sort()).toEqual(['link.txt', EXPORT_MANIFEST].sort());
  });

  it('reads a manifest of many files a line at a time: a big earlier export is replaced, a planted line still refused', async () => {
    const dir = path.join(t.dir, 'share', 'big');
    expect((await exportTo(dir)).ok).toBe(true);
    const own = JSON.parse(readFileSync(path.join(dir, EXPORT_MANIFEST), 'utf8')).files as { path: string; size: number; sha256: string }[];
    // This version writes one file per line: the layout the line reader takes.
    const lines = readFileSync(path.join(dir, EXPORT_MANIFEST), 'utf8').split('\n');
    expect(lines[0]).toBe('{"swath":"export-manifest","version":1,"files":[');
    expect(lines.at(-2)).toBe(']}');
    // Padded past 4 MB with files of long names an earlier export listed (gone since, so nothing else to check).
    const pad = Array.from({ length: 4_800 }, (_, i) => ({ path: `item-${i}/${'x'.repeat(800)}-${i}.json`, size: 1000, sha256: 'a'.repeat(64) }));
    const write = (files: object[]) => writeFileSync(path.join(dir, EXPORT_MANIFEST), `{"swath":"export-manifest","version":1,"files":[\n${files.map((f) => JSON.stringify(f)).join(',\n')}\n]}\n`);
    write([...own, ...pad]);
    expect(readFileSync(path.join(dir, EXPORT_MANIFEST)).length).toBeGreaterThan(4 * 1024 * 1024);
    expect((await exportTo(dir)).ok).toBe(true);
    expect(manifestPaths(dir).sort()).toEqual(own.map((f) => f.path).sort());

    // The same big manifest claiming the analyst's file (a wrong checksum), or a path out of the folder: refused, nothing removed.
    writeFileSync(path.join(dir, 'analyst-notes.docx'), 'notes');
    const now = JSON.parse(readFileSync(path.join(dir, EXPORT_MANIFEST), 'utf8')).files as object[];
    write([...now, ...pad, { path: 'analyst-notes.docx', size: 5, sha256: '0'.repeat(64) }]);
    expect(await exportTo(dir)).toMatchObject({ ok: false, error: { message: expect.stringContaining('analyst-notes.docx') } });
    expect(readFileSync(path.join(dir, 'analyst-notes.docx'), 'utf8')).toBe('notes');
    rmSync(path.join(dir, 'analyst-notes.docx'));
    const outside = path.join(t.dir, 'share', 'big-outside.txt');
    writeFileSync(outside, 'outside');
    write([...now, ...pad, { path: '../big-outside.txt', size: 7, sha256: createHash('sha256').update('outside').digest('hex') }]);
    expect((await exportTo(dir)).ok).toBe(false);
    expect(readFileSync(outside, 'utf8')).toBe('outside');
  });

  it('still replaces an export an earlier version wrote (its manifest pretty-printed)', async () => {
    const dir = path.join(t.dir, 'share', 'pretty');
    expect((await exportTo(dir)).ok).toBe(true);
    const manifest = JSON.parse(readFileSync(path.join(dir, EXPORT_MANIFEST), 'utf8'));
    writeFileSync(path.join(dir, EXPORT_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    expect((await exportTo(dir)).ok).toBe(true);
    expect(readdirSync(path.dirname(dir)).filter((n) => n.startsWith('.'))).toEqual([]);
  });
});
