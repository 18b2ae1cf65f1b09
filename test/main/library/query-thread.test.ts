import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { LIBRARY_FILE, LibraryCatalog, LibraryQueryThread, type LibraryEntry, type LibraryQuery } from '../../../main/library/index.js';
import { DatabaseSync } from 'node:sqlite';
import { LIBRARY_FIRST_PAGE } from '../../../common/library-first-page.js';
import { DATABASE_FILE } from '../../../main/shared/database.js';

// The list's queries on their own thread and connection (what `library:query` runs in the app),
// against the catalog's answers on main's connection.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-libthread-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

function entries(n: number): LibraryEntry[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `id-${i}`, path: path.join(dir, 'files', `scene-${i}-${i % 3 ? 'harvest' : 'flood'}.tif`), size: i, sha256: 'a'.repeat(64),
    request: i % 2 ? { Wkt: 'POLYGON((13.4 52.5,13.43 52.5,13.43 52.52,13.4 52.52,13.4 52.5))' } : null, kind: null,
    date: `2026-01-${String(1 + (i % 28)).padStart(2, '0')}`, model: 'Stratus2', constellations: ['Sentinel2'], bands: ['B4', 'B3', 'B2'],
    epsg: 32633, resolution: 10, width: 4, height: 4, bounds4326: [13.4, 52.5, 13.43, 52.52],
    createdAt: new Date(Date.UTC(2026, 1, 1) + i * 1000).toISOString(), source: 'import',
  }));
}

async function seeded(es: LibraryEntry[]): Promise<LibraryCatalog> {
  writeFileSync(path.join(dir, LIBRARY_FILE), JSON.stringify({ version: 1, entries: es }));
  return LibraryCatalog.open({ dir });
}

describe('LibraryQueryThread', () => {
  it("answers the list's pages on its own connection as main's does, and follows main's commits", async () => {
    const es = entries(60);
    const cat = await seeded(es);
    const warnings: string[] = [];
    const thread = new LibraryQueryThread({ file: path.join(dir, DATABASE_FILE), fallback: (q) => cat.query(q), version: () => cat.changeVersion(), onWarning: (m) => warnings.push(m) });
    const asked: LibraryQuery[] = [
      { limit: 10 }, { limit: 10, series: true }, { limit: 20, text: 'harvest', sort: 'name' }, { limit: 20, text: 'harvest', series: true, offset: 5 },
    ];
    for (const q of asked) expect(await thread.query(q)).toEqual(cat.query(q));
    // Main commits (a raster removed): the thread's kept counts and text matches follow.
    const before = await thread.query({ limit: 20, text: 'harvest', series: true });
    await cat.remove('id-1', {}, new AbortController().signal);
    const after = await thread.query({ limit: 20, text: 'harvest', series: true });
    expect(after.total).toBe(before.total - 1);
    expect(after).toEqual(cat.query({ limit: 20, text: 'harvest', series: true }));
    expect((await thread.query({ limit: 100 })).all).toBe(59);
    expect(warnings).toEqual([]);
    await thread.close();
    await cat.close();
  });

  it('answers a query asked again from its last answer until the database changes, by main or another connection', async () => {
    const cat = await seeded(entries(30));
    let asked = 0;
    const thread = new LibraryQueryThread({
      file: path.join(dir, DATABASE_FILE), fallback: (q) => { asked++; return cat.query(q); }, version: () => cat.changeVersion(),
      entry: () => ({ file: path.join(dir, 'no-such-worker.js'), fromSource: false }),
    });
    // At start: the Library's first page, asked the way the panel asks it, is then ready.
    await thread.warm();
    expect(asked).toBe(1);
    const first = await thread.query({ ...LIBRARY_FIRST_PAGE });
    expect(asked).toBe(1);
    expect(first).toEqual(cat.query({ ...LIBRARY_FIRST_PAGE }));
    // Main commits: asked again, and the answer has the change.
    await cat.remove('id-0', {}, new AbortController().signal);
    // The panel opening while the start's first page is still being answered: one walk for both.
    const [warming, opened] = [thread.warm(), thread.query({ ...LIBRARY_FIRST_PAGE })];
    await warming;
    expect(await opened).toEqual(cat.query({ ...LIBRARY_FIRST_PAGE }));
    expect(asked).toBe(2);
    await cat.remove('id-1', {}, new AbortController().signal);
    const afterRemove = await thread.query({ ...LIBRARY_FIRST_PAGE });
    expect(asked).toBe(3);
    expect(afterRemove.all).toBe(28);
    expect(await thread.query({ ...LIBRARY_FIRST_PAGE })).toBe(afterRemove);
    // The text index's merging (idle work on main's connection, due after a change) changes no content.
    await cat.textMerger.settle();
    expect(await thread.query({ ...LIBRARY_FIRST_PAGE })).toBe(afterRemove);
    expect(asked).toBe(3);
    // Another connection commits to the same file (another process, a tool): asked again too.
    const other = new DatabaseSync(path.join(dir, DATABASE_FILE));
    other.exec("DELETE FROM library WHERE id = 'id-2'");
    other.close();
    expect((await thread.query({ ...LIBRARY_FIRST_PAGE })).all).toBe(27);
    expect(asked).toBe(4);
    // Different queries are different answers; only a few are kept.
    for (let limit = 1; limit <= 6; limit++) await thread.query({ limit });
    expect(asked).toBe(10);
    await thread.query({ ...LIBRARY_FIRST_PAGE });
    expect(asked).toBe(11);
    await thread.close();
    await cat.close();
  });

  it("answers on main's connection, and says so once, when its thread cannot start", async () => {
    const cat = await seeded(entries(5));
    const warnings: string[] = [];
    const thread = new LibraryQueryThread({
      file: path.join(dir, DATABASE_FILE), fallback: (q) => cat.query(q), version: () => cat.changeVersion(), onWarning: (m) => warnings.push(m),
      entry: () => ({ file: path.join(dir, 'no-such-worker.js'), fromSource: false }),
    });
    expect(await thread.query({ limit: 10 })).toEqual(cat.query({ limit: 10 }));
    expect(await thread.query({ limit: 2 })).toEqual(cat.query({ limit: 2 }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/The library's queries run on main's thread from now on: their worker failed/);
    await thread.close();
    await cat.close();
  });
});
