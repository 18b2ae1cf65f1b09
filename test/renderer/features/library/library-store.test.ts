// @vitest-environment jsdom
import { flushPromises } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RequestOf, Result } from '../../../../preload/contract';
import { item } from './entries';
import { queryEntries } from './fake-library';

// The library and preview stores with the bridge (window.swath) and the GeoTIFF reader replaced:
// what they ask main for, what the panels see when a raster cannot be previewed, and that
// closing a layer cancels its preview in main.

const fake = vi.hoisted(() => ({ api: null as any, header: null as any }));
vi.mock('../../../../renderer/src/platform/raster/raster-data', async (orig) => {
  const real = await orig<typeof import('../../../../renderer/src/platform/raster/raster-data')>();
  return {
    ...real,
    RasterFile: {
      open: vi.fn(async () => ({
        header: fake.header,
        close: async () => undefined,
        overviewLevel: () => 0,
        readSample: async () => ({ width: 1, height: 1, data: fake.header.bands.map(() => [100]) }),
      })),
    },
  };
});

vi.mock('../../../../renderer/src/platform/raster/render-sample', async (orig) => ({
  ...(await orig<typeof import('../../../../renderer/src/platform/raster/render-sample')>()),
  rgbaToDataUrl: () => 'data:image/png;base64,thumb',
}));

// The stores load the preview engine on first use; loaded here once so no test waits for it.
await import('../../../../renderer/src/platform/preview/engine');
const { useLibraryStore } = await import('../../../../renderer/src/features/library/stores/library');
const { usePreviewStore } = await import('../../../../renderer/src/features/library/stores/preview');
const { askFirstPageAhead, takeFirstPageAhead, KEEP_MS } = await import('../../../../renderer/src/features/library/stores/first-page-ahead');
const { LIBRARY_FIRST_PAGE } = await import('../../../../common/library-first-page');

const ok = <T>(data: T): Result<T> => ({ ok: true, data });

function bridge(entries = [item({ id: 'a' }), item({ id: 'b', epsg: 99999, bounds4326: null })]) {
  const listeners = new Map<string, (p: any) => void>();
  fake.api = {
    libraryQuery: vi.fn(async (q: RequestOf<'library:query'>) => ok(queryEntries(entries, q))),
    libraryImport: vi.fn(async ({ paths }: { paths: string[] }) => ok({ entries: paths.map((p) => item({ path: p })) })),
    libraryRemove: vi.fn(async ({ id }: { id: string }) => {
      entries.splice(entries.findIndex((e) => e.id === id), 1);
      return ok({ removed: true as const });
    }),
    libraryReveal: vi.fn(async () => ok({ revealed: false })),
    libraryPreview: vi.fn(async ({ id }: { id: string }) => ok({ id, state: 'not-needed', rasterId: id, reason: 'COG', reused: false, buildMs: 0 })),
    on: vi.fn((event: string, cb: (p: any) => void) => {
      listeners.set(event, cb);
      return () => listeners.delete(event);
    }),
    cancel: vi.fn(),
  };
  window.swath = fake.api;
  return { listeners };
}

const header = (epsg: number | null) => ({
  width: 10, height: 10, dataType: 'INT16', nodata: -32768, fileNodata: true, epsg, bbox: [0, 0, 100, 100], origin: [0, 100], resolution: [10, -10], overviews: 0, tiled: true,
  bands: ['B4', 'B3', 'B2'].map((name) => ({ name, scaling: { scale: 1e-4, offset: 0 } })),
});

describe('library store', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    fake.header = header(32633);
  });
  // A page asked ahead that a failed test left is not handed to the next test's store.
  afterEach(() => {
    vi.useRealTimers();
    void takeFirstPageAhead({ ...LIBRARY_FIRST_PAGE })?.catch(() => undefined);
  });

  it('lists a window of main\'s query, applies library:changed by id, and refuses non-GeoTIFF imports before asking main', async () => {
    const entries = [item({ id: 'a', date: '2026-06-02' }), item({ id: 'b', epsg: 99999, bounds4326: null, date: '2026-06-01' })];
    const { listeners } = bridge(entries);
    const lib = useLibraryStore();
    await lib.start();
    expect([lib.rowAt(0)?.id, lib.rowAt(1)?.id]).toEqual(['a', 'b']);
    expect(lib).toMatchObject({ rows: 2, matched: 2, all: 2 });
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(1);
    // No thumbnails until a row is drawn; then only that row's.
    await flushPromises();
    expect(Object.keys(lib.thumbnails)).toEqual([]);
    lib.wantThumbnail(lib.rowAt(0)!);
    await vi.waitFor(() => expect(Object.keys(lib.thumbnails)).toEqual(['a']));

    // A known entry changed (its hash is in): replaced in place, no query.
    listeners.get('library:changed')!({ upserted: [{ ...entries[0]!, sha256: 'f'.repeat(64) }], removed: [] });
    await flushPromises();
    expect(lib.rowAt(0)!.sha256).toBe('f'.repeat(64));
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(1);
    // A burst of adds and removals: the window is asked for once.
    entries.push(item({ id: 'c', date: '2026-06-03', bounds4326: [2.3, 48.8, 2.4, 48.9] }));
    entries.splice(1, 1);
    listeners.get('library:changed')!({ upserted: [entries[1]!], removed: [] });
    listeners.get('library:changed')!({ upserted: [], removed: ['b'] });
    await flushPromises();
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(2);
    expect([lib.rowAt(0)?.id, lib.rowAt(1)?.id, lib.rowAt(2)]).toEqual(['c', 'a', undefined]);

    expect(await lib.importPaths(['/x/notes.txt'])).toBe(false);
    expect(lib.importError).toMatch(/Only GeoTIFF files/);
    expect(fake.api.libraryImport).not.toHaveBeenCalled();
    expect(await lib.importPaths([' /x/new.TIF ', ''])).toBe(true);
    expect(fake.api.libraryImport).toHaveBeenCalledWith({ paths: ['/x/new.TIF'] });
    expect(lib.notice).toBe('Imported 1 raster.');
  });

  it('takes the first page asked ahead (the rail button pressed) once, and asks itself when it is stale, expired or not the first page', async () => {
    const entries = [item({ id: 'a', date: '2026-06-02' })];
    bridge(entries);
    // Every subscriber of an event hears it (the ahead answer's and the store's), as with the preload.
    const subscribers = new Set<[string, (p: any) => void]>();
    fake.api.on = vi.fn((event: string, cb: (p: any) => void) => {
      const s: [string, (p: any) => void] = [event, cb];
      subscribers.add(s);
      return () => subscribers.delete(s);
    });
    const listening = () => [...subscribers].filter(([e]) => e === 'library:changed');
    const changed = (p: unknown) => { for (const [, cb] of listening()) cb(p); };

    // Asked ahead and taken: the store asks nothing more, and shows it.
    askFirstPageAhead();
    askFirstPageAhead();
    expect(fake.api.libraryQuery).toHaveBeenCalledExactlyOnceWith({ ...LIBRARY_FIRST_PAGE });
    let lib = useLibraryStore();
    await lib.start();
    expect(fake.api.libraryQuery).toHaveBeenCalledOnce();
    expect(lib.rowAt(0)?.id).toBe('a');
    // Taken once: the next first page is asked of main.
    await lib.refresh();
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(2);
    lib.stop();
    expect(listening()).toHaveLength(0);

    // A change after it was asked: dropped (and its listener with it); the store asks and shows the change.
    setActivePinia(createPinia());
    askFirstPageAhead();
    entries.unshift(item({ id: 'b', date: '2026-06-03' }));
    changed({ upserted: [entries[0]], removed: [] });
    expect(listening()).toHaveLength(0);
    lib = useLibraryStore();
    await lib.start();
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(4);
    expect(lib.rowAt(0)?.id).toBe('b');
    lib.stop();

    // An error answered ahead is not shown: main is asked again.
    setActivePinia(createPinia());
    fake.api.libraryQuery.mockImplementationOnce(async () => ({ ok: false, error: { kind: 'io', message: 'The query thread stopped.' } }));
    askFirstPageAhead();
    lib = useLibraryStore();
    await lib.start();
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(6);
    expect(lib.error).toBeNull();
    expect(lib.rowAt(0)?.id).toBe('b');
    lib.stop();

    // Not the first page (a filter set before the panel asked): not taken; kept until KEEP_MS (a press
    // that did not become a click), then dropped with its listener.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      setActivePinia(createPinia());
      askFirstPageAhead();
      lib = useLibraryStore();
      lib.filter.query = 'B4';
      await lib.start();
      expect(fake.api.libraryQuery).toHaveBeenCalledTimes(8);
      expect(fake.api.libraryQuery).toHaveBeenLastCalledWith(expect.objectContaining({ text: 'B4' }));
      lib.stop();
      expect(listening()).toHaveLength(1);
      vi.advanceTimersByTime(KEEP_MS - 1);
      expect(listening()).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(listening()).toHaveLength(0);
      setActivePinia(createPinia());
      lib = useLibraryStore();
      await lib.start();
      expect(fake.api.libraryQuery).toHaveBeenCalledTimes(9);
      lib.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('asks for the window once per answer while changes keep coming (a watch run), and shows the last of them', async () => {
    const entries = [item({ id: 'a', date: '2026-06-01' })];
    const { listeners } = bridge(entries);
    const lib = useLibraryStore();
    await lib.start();
    // Main answers only when told: the first request after the changes is still out while more arrive.
    const held: (() => void)[] = [];
    const answer = fake.api.libraryQuery.getMockImplementation()!;
    fake.api.libraryQuery.mockImplementation((q: RequestOf<'library:query'>) => new Promise((resolve) => held.push(() => resolve(answer(q)))));
    const add = (id: string, day: number) => {
      entries.unshift(item({ id, date: `2026-06-${String(day).padStart(2, '0')}` }));
      listeners.get('library:changed')!({ upserted: [entries[0]!], removed: [] });
    };
    add('w1', 2);
    await flushPromises();
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(2);
    for (let d = 3; d < 13; d++) add(`w${d - 1}`, d);
    await flushPromises();
    // Ten more adds while the request is out: none asked yet.
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(2);
    held.shift()!();
    await flushPromises();
    // Answered: one more request, for all ten.
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(3);
    held.shift()!();
    await flushPromises();
    expect(fake.api.libraryQuery).toHaveBeenCalledTimes(3);
    expect(lib.rowAt(0)?.id).toBe('w11');
    expect(lib.matched).toBe(12);
  });

  it('removes with or without the file, closing its layer first', async () => {
    bridge();
    const lib = useLibraryStore();
    const preview = usePreviewStore();
    await lib.start();
    preview.layers.push({ key: 'a', entryId: 'a', status: 'error' } as any);
    expect(await lib.remove('a', true)).toBe(true);
    expect(fake.api.libraryRemove).toHaveBeenCalledWith({ id: 'a', deleteFile: true });
    expect(preview.layers).toEqual([]);
    expect(lib.entries.map((e) => e.id)).toEqual(['b']);
    expect(lib.entry('a')).toBeUndefined();
  });

  it('an unknown EPSG code is a clear message on the layer, not a blank map', async () => {
    bridge();
    fake.header = header(99999);
    const lib = useLibraryStore();
    const preview = usePreviewStore();
    await lib.start();
    await preview.openOnMap('b');
    expect(preview.layers[0]).toMatchObject({ key: 'b', status: 'error' });
    expect(preview.layers[0]!.message).toMatch(/EPSG:99999 is not in Swath's offline projection set/);
  });

  it('a raster without a CRS, and a failed overview build, are errors with reasons', async () => {
    bridge([item({ id: 'a' }), item({ id: 'b', epsg: null, bounds4326: null })]);
    fake.header = header(null);
    const lib = useLibraryStore();
    const preview = usePreviewStore();
    await lib.start();
    await preview.openOnMap('b');
    expect(preview.layers[0]!.message).toMatch(/no EPSG code/);
    fake.api.libraryPreview = vi.fn(async () => ({ ok: false, error: { kind: 'io', message: 'disk full' } }));
    await preview.openOnMap('a');
    expect(preview.layers.find((l) => l.key === 'a')).toMatchObject({ status: 'error', message: 'disk full' });
  });

  it('shows overview build progress from main on the layer being opened', async () => {
    const { listeners } = bridge();
    let finish!: () => void;
    fake.api.libraryPreview = vi.fn(() => new Promise((resolve) => {
      finish = () => resolve(ok({ id: 'a', state: 'ready', rasterId: 'ovr-a', reason: 'striped', reused: false, buildMs: 1200 }));
    }));
    const lib = useLibraryStore();
    const preview = usePreviewStore();
    await lib.start();
    const opening = preview.openOnMap('a', { zoom: false });
    await flushPromises();
    listeners.get('library:overview-progress')!({ id: 'a', fraction: 0.4 });
    expect(preview.layers[0]).toMatchObject({ status: 'building', progress: 0.4 });
    finish();
    await flushPromises();
    expect(preview.layers[0]).toMatchObject({ status: 'loading', rasterId: 'ovr-a' });
    expect(preview.layers[0]!.note).toMatch(/overview copy \(built in 1.2 s\)/);
    void opening;
  });

  it('asks main for a quick look about the size of the screen first, and says so on the layer', async () => {
    bridge();
    fake.api.libraryPreview = vi.fn(async ({ id, quickLook }: { id: string; quickLook?: number }) =>
      ok({ id, state: quickLook ? 'quick-look' : 'ready', rasterId: quickLook ? `qlk-${id}` : `ovr-${id}`, reason: 'The file is striped.', reused: false, buildMs: 40 }));
    const lib = useLibraryStore();
    const preview = usePreviewStore();
    await lib.start();
    const opening = preview.openOnMap('a', { zoom: false });
    await flushPromises();
    const [request] = fake.api.libraryPreview.mock.calls[0]!;
    expect(request.id).toBe('a');
    expect(request.quickLook).toBeGreaterThanOrEqual(256);
    expect(Number.isInteger(request.quickLook)).toBe(true);
    expect(preview.layers[0]).toMatchObject({ status: 'building', rasterId: 'qlk-a' });
    expect(preview.layers[0]!.note).toMatch(/quick look is shown while the overview copy is built/);
    void opening;
  });

  it('an open that outlives its layer (closed and opened again) leaves the new layer alone', async () => {
    bridge();
    const answers: ((r: Result<unknown>) => void)[] = [];
    fake.api.libraryPreview = vi.fn(() => new Promise((resolve) => answers.push(resolve)));
    const lib = useLibraryStore();
    const preview = usePreviewStore();
    await lib.start();
    const first = preview.openOnMap('a', { zoom: false });
    await flushPromises();
    preview.close('a');
    const second = preview.openOnMap('a', { zoom: false });
    await flushPromises();
    expect(answers).toHaveLength(2);
    // The first request fails late: the layer on the map now is the second one's, still opening.
    answers[0]!({ ok: false, error: { kind: 'io', message: 'first open failed' } });
    await first;
    expect(preview.layers).toHaveLength(1);
    expect(preview.layers[0]).toMatchObject({ key: 'a', status: 'preparing', message: null });
    answers[1]!({ ok: false, error: { kind: 'io', message: 'second open failed' } });
    await second;
    expect(preview.layers[0]).toMatchObject({ status: 'error', message: 'second open failed' });
  });

  it('reveal says where it is not available', async () => {
    bridge();
    const lib = useLibraryStore();
    await lib.start();
    expect(await lib.reveal('a')).toBe(false);
    expect(lib.notice).toMatch(/desktop app/);
  });

  it('closing a layer while main builds its preview cancels that call in main', async () => {
    bridge();
    fake.api.libraryPreview = vi.fn(() => new Promise(() => undefined));
    const lib = useLibraryStore();
    const preview = usePreviewStore();
    await lib.start();
    const opening = preview.openOnMap('a', { zoom: false });
    await flushPromises();
    const [request, options] = fake.api.libraryPreview.mock.calls[0]!;
    expect(request.id).toBe('a');
    expect(options).toEqual({ callId: expect.any(Number) });
    expect(fake.api.cancel).not.toHaveBeenCalled();
    preview.close('a');
    expect(fake.api.cancel).toHaveBeenCalledExactlyOnceWith(options.callId);
    // The open ends (its answer is 'cancelled') and leaves nothing behind.
    await opening;
    expect(preview.layers).toEqual([]);
    // Once main has answered, closing the layer has nothing to cancel there.
    fake.api.libraryPreview = vi.fn(async ({ id }: { id: string }) => ok({ id, state: 'unsupported', rasterId: id, reason: 'x', reused: false, buildMs: 0 }));
    void preview.openOnMap('a', { zoom: false });
    await flushPromises();
    expect(fake.api.libraryPreview).toHaveBeenCalledOnce();
    preview.close('a');
    expect(fake.api.cancel).toHaveBeenCalledOnce();
  });
});
