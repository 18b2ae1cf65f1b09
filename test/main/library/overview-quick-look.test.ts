import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../main/ipc';
import { MemoryKeychainBackend } from '../../../main/profiles';
import { LibraryCatalog, serveLibraryFile } from '../../../main/library';
import { OVERVIEW_PREFIX, OverviewCache, QUICK_LOOK_PREFIX } from '../../../main/library/overview-cache';
import { createApp, type SwathApp } from '../../../main/app/app';
import { startSimulator } from '../../../simulator';
import { fixturePath } from '../../fixtures/rasters';
import { decimateExpected, difference, readFile, readLevel } from './decimate-helpers';

// Quick looks of the overview cache: a decimated copy answered at once for a file whose overview
// copy does not exist yet, shared and reused within the session, served as qlk-<f>-<id>, replaced by
// the full copy on the next request, deleted with its entry and by the next session's prune; and
// the library:preview channel that asks for them.

const signal = new AbortController().signal;
const KEY_COPY = /^[0-9a-f]{40}\.tif$/;
const qlk = (f: number, id: string) => `${QUICK_LOOK_PREFIX}${f}-${id}`;
const quickName = (f: number) => new RegExp(`^[0-9a-f]{40}\\.quick${f}-\\d+\\.tif$`);

describe('overview cache quick looks', () => {
  let dir: string;
  let ovDir: string;
  let catalog: LibraryCatalog;
  let n = 0;
  /** A fresh copy of a fixture imported into the catalog (its own path, so its own copy key). */
  const importCopy = async (fixture: string) => {
    const file = path.join(dir, `${fixture}-${n++}.tif`);
    copyFileSync(fixturePath(fixture), file);
    return { file, entry: await catalog.importFile(file, signal) };
  };
  const files = () => readdirSync(ovDir).sort();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-qlk-'));
    ovDir = path.join(dir, 'overviews');
    catalog = await LibraryCatalog.open({ dir });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers a quick look (shared by concurrent callers, reused, served at ceil(W/f)), then the full copy, then the copy directly; removal deletes both', async () => {
    const { file, entry } = await importCopy('utm33n-striped');
    const progress: number[] = [];
    const cache = new OverviewCache({ dir: ovDir, catalog, onProgress: (p) => progress.push(p.fraction) });
    const lookup = cache.rasterLookup();
    expect(lookup.get(qlk(3, entry.id))).toBeUndefined();

    // 400 px / 120 -> f = 3: 134 x 134 px.
    const [a, b] = await Promise.all([
      cache.prepare(entry.id, signal, { quickLook: 120 }),
      cache.prepare(entry.id, signal, { quickLook: 120 }),
    ]);
    for (const s of [a, b]) expect(s).toMatchObject({ id: entry.id, state: 'quick-look', rasterId: qlk(3, entry.id) });
    expect(a.reason).toMatch(/striped/);
    expect([a.reused, b.reused].sort()).toEqual([false, true]);
    expect(a.buildMs).toBeGreaterThanOrEqual(0);
    // One quick look and no full copy (nor a partial one).
    const afterQuick = files();
    expect(afterQuick).toHaveLength(1);
    expect(afterQuick[0]).toMatch(quickName(3));
    expect(progress).toEqual([]);
    expect(lookup.get(OVERVIEW_PREFIX + entry.id)).toBeUndefined();

    const quickFile = path.join(ovDir, afterQuick[0]!);
    expect(lookup.get(qlk(3, entry.id))?.path).toBe(quickFile);
    expect(lookup.get(entry.id)?.path).toBe(file);
    const quick = await readFile(quickFile);
    expect([quick.width, quick.height, quick.bands]).toEqual([134, 134, 5]);
    expect(difference(quick, decimateExpected(await readLevel(file), 3))).toBeNull();
    expect(quick.resolution.slice(0, 2)).toEqual([60, -60]);
    const res = await serveLibraryFile(lookup, `swath-raster://${qlk(3, entry.id)}`, { range: 'bytes=0-3' });
    expect(res.status).toBe(206);
    await res.body?.cancel();

    // Asked again: the same file, not rebuilt.
    const mtime = statSync(quickFile).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    const again = await cache.prepare(entry.id, signal, { quickLook: 120 });
    expect(again).toMatchObject({ state: 'quick-look', rasterId: qlk(3, entry.id), reused: true });
    expect(statSync(quickFile).mtimeMs).toBe(mtime);
    expect(files()).toEqual(afterQuick);

    // Without quickLook: the full copy is built now.
    const full = await cache.prepare(entry.id, signal);
    expect(full).toMatchObject({ state: 'ready', rasterId: OVERVIEW_PREFIX + entry.id, reused: false });
    expect(progress.at(-1)).toBe(1);
    const copies = files().filter((f) => KEY_COPY.test(f));
    expect(copies).toHaveLength(1);
    expect(afterQuick[0]!.startsWith(copies[0]!.replace(/\.tif$/, '.quick'))).toBe(true);
    const copyFile = path.join(ovDir, copies[0]!);
    expect(lookup.get(OVERVIEW_PREFIX + entry.id)?.path).toBe(copyFile);
    const copy = await readFile(copyFile);
    expect([copy.width, copy.height]).toEqual([400, 400]);

    // Now that the copy exists, a quick look is not needed.
    const direct = await cache.prepare(entry.id, signal, { quickLook: 120 });
    expect(direct).toMatchObject({ state: 'ready', rasterId: OVERVIEW_PREFIX + entry.id, reused: true, buildMs: 0 });
    expect(statSync(quickFile).mtimeMs).toBe(mtime);

    // A fresh cache (restart) with the copy on disk also answers 'ready' to a quick-look request.
    const restarted = new OverviewCache({ dir: ovDir, catalog });
    expect(await restarted.prepare(entry.id, signal, { quickLook: 120 })).toMatchObject({ state: 'ready', rasterId: OVERVIEW_PREFIX + entry.id, reused: true });

    await catalog.remove(entry.id, { deleteFile: false }, signal);
    await expect.poll(() => existsSync(quickFile)).toBe(false);
    await expect.poll(() => existsSync(copyFile)).toBe(false);
    expect(lookup.get(qlk(3, entry.id))).toBeUndefined();
    expect(existsSync(file)).toBe(true);
  });

  it('chooses f = floor(max(W, H) / quickLook): one quick look per factor, each under its own id; below 2 the copy itself', async () => {
    const { entry } = await importCopy('utm33n-striped');
    const cache = new OverviewCache({ dir: ovDir, catalog });
    const before = new Set(files());
    const cases: [number, number][] = [[64, 6], [100, 4], [200, 2], [199, 2], [133, 3]];
    const served = new Map<number, string>();
    for (const [quickLook, f] of cases) {
      const s = await cache.prepare(entry.id, signal, { quickLook });
      expect(s, `quickLook ${quickLook}`).toMatchObject({ state: 'quick-look', rasterId: qlk(f, entry.id) });
      const file = cache.rasterLookup().get(qlk(f, entry.id))!.path;
      served.set(f, file);
      expect(path.basename(file), `quickLook ${quickLook}`).toMatch(quickName(f));
      const q = await readLevel(file);
      expect([q.width, q.height], `quickLook ${quickLook}`).toEqual([Math.ceil(400 / f), Math.ceil(400 / f)]);
    }
    // An id keeps its file whatever size is asked later (an open RasterFile never changes under it).
    expect(cache.rasterLookup().get(qlk(6, entry.id))!.path).toBe(served.get(6));
    expect(cache.rasterLookup().get(qlk(5, entry.id))).toBeUndefined();
    const made = files().filter((f) => !before.has(f));
    expect(made.sort()).toEqual(made.filter((f) => /\.quick(6|4|2|3)-\d+\.tif$/.test(f)).sort());
    expect(made).toHaveLength(4);
    expect(made.some((f) => KEY_COPY.test(f))).toBe(false);
    // 400 px on a 399 px screen: no quick look, the copy at once.
    expect(await cache.prepare(entry.id, signal, { quickLook: 399 })).toMatchObject({ state: 'ready', rasterId: OVERVIEW_PREFIX + entry.id, reused: false });
    expect(files().some((f) => KEY_COPY.test(f))).toBe(true);
    await catalog.remove(entry.id, { deleteFile: false }, signal);
  });

  it('a COG is previewed directly even when a quick look is asked for; a missing id is not-found', async () => {
    const { entry } = await importCopy('utm33n-cog');
    const cache = new OverviewCache({ dir: ovDir, catalog });
    const before = existsSync(ovDir) ? files() : [];
    expect(await cache.prepare(entry.id, signal, { quickLook: 100 })).toMatchObject({ state: 'not-needed', rasterId: entry.id, reused: false, buildMs: 0 });
    expect(existsSync(ovDir) ? files() : []).toEqual(before);
    expect(cache.rasterLookup().get(qlk(4, entry.id))).toBeUndefined();
    await expect(cache.prepare('missing', signal, { quickLook: 100 })).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('prune on a fresh cache deletes quick looks of an earlier session but keeps full copies of current entries; the session\'s own quick looks survive its prune', async () => {
    const { entry } = await importCopy('utm33n-striped');
    const { entry: other } = await importCopy('utm33n-striped');
    const session1 = new OverviewCache({ dir: ovDir, catalog });
    await session1.prepare(entry.id, signal);
    const copyName = path.basename(session1.rasterLookup().get(OVERVIEW_PREFIX + entry.id)!.path);
    expect(copyName).toMatch(KEY_COPY);
    const key = copyName.replace(/\.tif$/, '');
    expect((await session1.prepare(other.id, signal, { quickLook: 100 })).state).toBe('quick-look');
    const otherQuick = session1.rasterLookup().get(qlk(4, other.id))!.path;
    expect(path.basename(otherQuick)).toMatch(quickName(4));

    // Same session: its own quick look is kept, the current copy too.
    await session1.prune();
    expect(existsSync(otherQuick)).toBe(true);
    expect(existsSync(path.join(ovDir, copyName))).toBe(true);

    // Left over from an earlier session: a quick look of a current entry's key, its partial file,
    // and a quick look of a file no longer in the library.
    const leftovers = [`${key}.quick4.tif`, `${key}.quick4.tif.part`, `${'f'.repeat(40)}.quick2.tif`];
    for (const name of leftovers) writeFileSync(path.join(ovDir, name), 'old');
    const session2 = new OverviewCache({ dir: ovDir, catalog });
    const removed = await session2.prune();
    for (const name of leftovers) expect(existsSync(path.join(ovDir, name)), name).toBe(false);
    // session1's quick look is not a build of session 2 either.
    expect(existsSync(otherQuick)).toBe(false);
    expect(removed).toBe(leftovers.length + 1);
    expect(existsSync(path.join(ovDir, copyName))).toBe(true);
    expect(await session2.prepare(entry.id, signal, { quickLook: 100 })).toMatchObject({ state: 'ready', reused: true, buildMs: 0 });

    await catalog.remove(entry.id, { deleteFile: false }, signal);
    await catalog.remove(other.id, { deleteFile: false }, signal);
  });

  it('prune looks at library files only while a copy has no source found: none for a folder of quick looks, and none after the last copy\'s source', async () => {
    const { entry } = await importCopy('utm33n-striped');
    // A cache folder of its own: what other tests built is not this test's to prune.
    const own = path.join(dir, 'overviews-prune');
    const files = () => readdirSync(own).sort();
    const session1 = new OverviewCache({ dir: own, catalog });
    await session1.prepare(entry.id, signal);
    const copyName = path.basename(session1.rasterLookup().get(OVERVIEW_PREFIX + entry.id)!.path);
    // A library of 101 files as the cache sees it: the copy's source first, then 100 others.
    const sources = [entry.path, ...Array.from({ length: 100 }, (_, i) => path.join(dir, `other-${i}.tif`))];
    const slices = vi.spyOn(sources, 'slice');
    const paths = vi.fn(() => sources);
    const seen = Object.assign(Object.create(catalog) as LibraryCatalog, { paths });

    // The copy's source is in the first batch of files: the other 100 are not looked at.
    expect(await new OverviewCache({ dir: own, catalog: seen }).prune()).toBe(0);
    expect(slices).toHaveBeenCalledOnce();
    expect(files()).toContain(copyName);

    // A copy whose source is gone: every file is looked at (in batches), then it is removed.
    const orphan = `${'e'.repeat(40)}.tif`;
    writeFileSync(path.join(own, orphan), 'old');
    slices.mockClear();
    expect(await new OverviewCache({ dir: own, catalog: seen }).prune()).toBe(1);
    expect(slices).toHaveBeenCalledTimes(Math.ceil(sources.length / 16));
    expect(files()).toEqual([copyName]);

    // A copy this session serves stays, even when the library's listing had no source for it (a file
    // imported while prune looked at the others).
    const without = Object.assign(Object.create(catalog) as LibraryCatalog, { paths: () => sources.slice(1) });
    const serving = new OverviewCache({ dir: own, catalog: without });
    expect(await serving.prepare(entry.id, signal)).toMatchObject({ state: 'ready', reused: true });
    expect(await serving.prune()).toBe(0);
    expect(files()).toEqual([copyName]);

    // Only quick looks of an earlier session: the library is not read at all.
    rmSync(path.join(own, copyName));
    writeFileSync(path.join(own, `${'f'.repeat(40)}.quick2.tif`), 'old');
    paths.mockClear();
    expect(await new OverviewCache({ dir: own, catalog: seen }).prune()).toBe(1);
    expect(paths).not.toHaveBeenCalled();
    expect(files()).toEqual([]);
    await catalog.remove(entry.id, { deleteFile: false }, signal);
  });

  it('an entry removed while its quick look is built gets no quick look, and the file goes when the build ends', async () => {
    const { entry } = await importCopy('utm33n-striped');
    const cache = new OverviewCache({ dir: ovDir, catalog });
    const before = new Set(readdirSync(ovDir));
    const asking = cache.prepare(entry.id, signal, { quickLook: 100 });
    await catalog.remove(entry.id, { deleteFile: false }, signal);
    await expect(asking).rejects.toMatchObject({ kind: 'not-found' });
    await expect.poll(() => readdirSync(ovDir).filter((f) => !before.has(f))).toEqual([]);
    expect(cache.rasterLookup().get(qlk(4, entry.id))).toBeUndefined();
  });

  // Removing an entry forgets its quick look at once: the same unchanged file imported again (same
  // key) gets a new one, never the deleted file.
  it('a quick look after the entry was removed and the same file imported again is served from an existing file', async () => {
    const { file, entry } = await importCopy('utm33n-striped');
    const cache = new OverviewCache({ dir: ovDir, catalog });
    expect((await cache.prepare(entry.id, signal, { quickLook: 100 })).state).toBe('quick-look');
    const first = cache.rasterLookup().get(qlk(4, entry.id))!.path;
    await catalog.remove(entry.id, { deleteFile: false }, signal);
    await expect.poll(() => existsSync(first)).toBe(false);

    const again = await catalog.importFile(file, signal);
    const s = await cache.prepare(again.id, signal, { quickLook: 100 });
    expect(s.state).toBe('quick-look');
    const served = cache.rasterLookup().get(qlk(4, again.id))?.path;
    expect(served).toBeDefined();
    expect(existsSync(served!)).toBe(true);
  });
});

const SENDER = 'app://swath/index.html';

describe('library:preview with quickLook through the app core', () => {
  let dir: string;
  let app: SwathApp;
  let d: Dispatcher;
  const keychain = new MemoryKeychainBackend();
  const start = async () => {
    app = await createApp({
      userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), version: '1.0.0', platform: 'linux', startSimulator,
      emit: () => undefined, keychainBackend: keychain,
    });
    d = createDispatcher(app.handlers, { isAllowedSender: (u) => u === SENDER, secrets: app.secrets });
  };
  const call = (channel: string, payload: unknown = {}) => d.dispatch(channel, payload, SENDER) as Promise<any>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-qlk-app-'));
    for (const name of ['utm33n-striped', 'utm33n-cog']) copyFileSync(fixturePath(name), path.join(dir, `${name}.tif`));
    await start();
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a quick look, then the copy; refuses quickLook values the contract rejects; the next session prunes the quick look', async () => {
    const imported = await call('library:import', { paths: ['utm33n-striped', 'utm33n-cog'].map((name) => path.join(dir, `${name}.tif`)) });
    expect(imported.ok, JSON.stringify(imported.error)).toBe(true);
    const striped = imported.data.entries.find((e: any) => e.path.endsWith('utm33n-striped.tif'));
    const cog = imported.data.entries.find((e: any) => e.path.endsWith('utm33n-cog.tif'));

    for (const quickLook of [10, 1.5, 63, 8193, '512']) {
      const bad = await call('library:preview', { id: striped.id, quickLook });
      expect(bad, `quickLook ${String(quickLook)}`).toMatchObject({ ok: false, error: { kind: 'validation', fields: { quickLook: [expect.any(String)] } } });
    }
    expect((await call('library:preview', { id: cog.id, quickLook: 100 })).data).toMatchObject({ state: 'not-needed', rasterId: cog.id });

    // 400 px / 64 -> f = 6: 67 x 67 px.
    const q = await call('library:preview', { id: striped.id, quickLook: 64 });
    expect(q.ok, JSON.stringify(q.error)).toBe(true);
    expect(q.data).toMatchObject({ id: striped.id, state: 'quick-look', rasterId: qlk(6, striped.id), reused: false });
    const quickFile = app.rasters.get(q.data.rasterId)!.path;
    expect(path.basename(quickFile)).toMatch(quickName(6));
    const decoded = await readLevel(quickFile);
    expect([decoded.width, decoded.height]).toEqual([67, 67]);
    const r = await serveLibraryFile(app.rasters, `swath-raster://${q.data.rasterId}`, { range: 'bytes=0-1' });
    expect(r.status).toBe(206);
    await r.body?.cancel();
    expect((await call('library:preview', { id: striped.id, quickLook: 64 })).data).toMatchObject({ state: 'quick-look', reused: true });

    const full = await call('library:preview', { id: striped.id });
    expect(full.data).toMatchObject({ state: 'ready', rasterId: `${OVERVIEW_PREFIX}${striped.id}`, reused: false });
    expect((await call('library:preview', { id: striped.id, quickLook: 64 })).data).toMatchObject({ state: 'ready', rasterId: `${OVERVIEW_PREFIX}${striped.id}`, reused: true });
    const copyFile = app.rasters.get(full.data.rasterId)!.path;

    // The next session prunes the quick look at start and keeps the copy.
    await app.close();
    await start();
    await expect.poll(() => existsSync(quickFile)).toBe(false);
    expect(existsSync(copyFile)).toBe(true);
    expect((await call('library:preview', { id: striped.id, quickLook: 64 })).data).toMatchObject({ state: 'ready', reused: true });
  });
});
