import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, watch } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../main/ipc';
import { MemoryKeychainBackend } from '../../../main/profiles';
import { OVERVIEW_PREFIX } from '../../../main/library/overview-cache';
import { createApp, type SwathApp } from '../../../main/app/app';
import { startSimulator } from '../../../simulator';
import { fixturePath } from '../../fixtures/rasters';
import { tapped, type Tap } from './tap';

// Cancelling a call from the renderer stops its work in main: the service sees its requests
// aborted and no new ones, and a preview build removes its partial file and publishes nothing.
// Calls go through the dispatcher with a call id, and are cancelled as the bridge cancels them.

const SENDER = 'app://swath/index.html';
const AOI = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const SEARCH = '/api/satelliteimages/search/available';
const ESTIMATE = '/api/satelliteimages/process/composite/estimate';
const CANCELLED = { ok: false, error: { kind: 'cancelled', message: 'The operation was cancelled.' } };

describe('cancelled calls stop in main', () => {
  let dir: string;
  let app: SwathApp;
  let d: Dispatcher;
  let tap!: Tap;
  let onEvent: (event: string, payload: any) => void = () => undefined;
  const window = {};
  let nextId = 1;
  /** Starts a call the way the bridge does (with a call id); `cancel` sends its cancel message. */
  const start = (channel: string, payload: unknown) => {
    const callId = nextId++;
    const answer = d.dispatch(channel, payload, SENDER, undefined, { sender: window, options: { callId } }) as Promise<any>;
    return { answer, cancel: () => d.cancel(window, { callId }, SENDER) };
  };
  const call = (channel: string, payload: unknown = {}) => d.dispatch(channel, payload, SENDER) as Promise<any>;
  const ovDir = () => path.join(dir, 'overviews');
  const overviewFiles = () => {
    try {
      return readdirSync(ovDir()).sort();
    } catch {
      return [];
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-cancel-'));
    app = await createApp({
      userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), version: '1.0.0', platform: 'linux',
      startSimulator: tapped(startSimulator, (t) => (tap = t)), keychainBackend: new MemoryKeychainBackend(),
      emit: (event, payload) => onEvent(event, payload),
    });
    d = createDispatcher(app.handlers, { isAllowedSender: (u) => u === SENDER, secrets: app.secrets });
    expect((await call('account:info')).ok).toBe(true);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a search: the service sees its request aborted, and it is not retried', async () => {
    tap.hold(SEARCH);
    const search = start('imagery:search', { request: { Wkt: AOI, From: '2026-08-01', Until: null } });
    await expect.poll(() => tap.requests.filter((r) => r.path === SEARCH).length).toBe(1);
    expect(search.cancel()).toBe(true);
    await expect(search.answer).resolves.toEqual(CANCELLED);
    await expect.poll(() => tap.requests.find((r) => r.path === SEARCH)?.aborted).toBe(true);
    tap.release();
    // Another call goes through the same client afterwards; the search was asked once only.
    expect((await call('service:ping')).data.reachable).toBe(true);
    expect(tap.requests.filter((r) => r.path === SEARCH)).toHaveLength(1);
    // The id is free again and a search still works.
    expect((await start('imagery:search', { request: { Wkt: AOI, From: '2026-08-01', Until: null } }).answer).ok).toBe(true);
  });

  it('a downloads:plan estimate fan-out: running estimates are aborted and no further ones are sent', async () => {
    const bands = 'B2,B3,B4,B5,B6,B7,B8,B8A,B11,B12,ndvi,[B11_B8],[B3_B8]';
    const request = { Wkt: AOI, Date: '2026-08-01', Model: 'Stratus2', Resolution: 160, EpsgProjection: 32633, Bandnames: bands };
    const series = { from: '2026-08-01', until: null };
    const full = await call('downloads:plan', { request, series });
    const total = full.data.estimate.requests as number;
    expect(total).toBeGreaterThan(8);
    const before = tap.requests.filter((r) => r.path === ESTIMATE).length;
    const estimates = () => tap.requests.filter((r) => r.path === ESTIMATE).slice(before);

    tap.hold(ESTIMATE);
    const plan = start('downloads:plan', { request, series });
    // The fan-out runs several estimates at once; all wait at the service.
    await expect.poll(() => estimates().length).toBeGreaterThanOrEqual(2);
    plan.cancel();
    await expect(plan.answer).resolves.toEqual(CANCELLED);
    const sent = estimates().length;
    expect(sent).toBeLessThan(total);
    await expect.poll(() => estimates().every((r) => r.aborted)).toBe(true);
    tap.release();
    expect((await call('service:ping')).data.reachable).toBe(true);
    expect(estimates()).toHaveLength(sent);
  });

  it('a preview\'s overview copy: the build stops, its partial file is removed and no copy is published', async () => {
    const file = path.join(dir, 'striped.tif');
    copyFileSync(fixturePath('utm33n-striped'), file);
    const [entry] = (await call('library:import', { paths: [file] })).data.entries;
    const progress: number[] = [];
    let preview: ReturnType<typeof start> | null = null;
    // Cancelled as soon as the build reports its first rows, as a closed preview layer does.
    onEvent = (event, payload) => {
      if (event !== 'library:overview-progress' || payload.id !== entry.id) return;
      progress.push(payload.fraction);
      if (progress.length === 1) preview!.cancel();
    };
    preview = start('library:preview', { id: entry.id });
    await expect(preview.answer).resolves.toEqual(CANCELLED);
    expect(progress[0]).toBeLessThan(1);
    await expect.poll(() => overviewFiles()).toEqual([]);
    expect(app.rasters.get(OVERVIEW_PREFIX + entry.id)).toBeUndefined();
    onEvent = () => undefined;

    // Opened again: a new build, published this time.
    const again = await call('library:preview', { id: entry.id });
    expect(again.data).toMatchObject({ state: 'ready', rasterId: OVERVIEW_PREFIX + entry.id, reused: false });
    expect(overviewFiles()).toEqual([expect.stringMatching(/^[0-9a-f]{40}\.tif$/)]);
  });

  it('a build two previews wait for goes on when one of them is closed', async () => {
    const file = path.join(dir, 'striped-shared.tif');
    copyFileSync(fixturePath('utm33n-striped'), file);
    const [entry] = (await call('library:import', { paths: [file] })).data.entries;
    let first: ReturnType<typeof start> | null = null;
    let cancelled = false;
    onEvent = (event, payload) => {
      if (event === 'library:overview-progress' && payload.id === entry.id && !cancelled) cancelled = first!.cancel();
    };
    first = start('library:preview', { id: entry.id });
    const second = start('library:preview', { id: entry.id });
    await expect(first.answer).resolves.toEqual(CANCELLED);
    expect((await second.answer).data).toMatchObject({ state: 'ready', rasterId: OVERVIEW_PREFIX + entry.id, reused: false });
    expect(app.rasters.get(OVERVIEW_PREFIX + entry.id)).toBeDefined();
    onEvent = () => undefined;
  });

  it('a preview\'s quick look: the build stops and its partial file is removed', async () => {
    // Big enough that the quick look is still being written when its file appears.
    const file = path.join(dir, 'big-striped.tif');
    const made = spawnSync('gdal_translate', ['-q', '-outsize', '4000', '4000', '-co', 'TILED=NO', fixturePath('utm33n-striped'), file], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const [entry] = (await call('library:import', { paths: [file] })).data.entries;
    const known = new Set(overviewFiles());
    // Watched from before the build starts (the folder may not exist yet when this test runs alone).
    mkdirSync(ovDir(), { recursive: true });
    const preview = start('library:preview', { id: entry.id, quickLook: 256 });
    const watcher = watch(ovDir(), (_type, name) => {
      if (name && name.includes('.quick') && name.endsWith('.part')) preview.cancel();
    });
    try {
      await expect(preview.answer).resolves.toEqual(CANCELLED);
    } finally {
      watcher.close();
    }
    await expect.poll(() => overviewFiles().filter((f) => !known.has(f))).toEqual([]);
    expect(app.rasters.get(`qlk-15-${entry.id}`)).toBeUndefined();
    // Asked again, it is built anew.
    const again = await call('library:preview', { id: entry.id, quickLook: 256 });
    expect(again.data).toMatchObject({ state: 'quick-look', rasterId: `qlk-15-${entry.id}`, reused: false });
  });
});
