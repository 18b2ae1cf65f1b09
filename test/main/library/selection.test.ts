import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../main/ipc';
import { MemoryKeychainBackend } from '../../../main/profiles';
import { createApp, type SwathApp } from '../../../main/app/app';
import { startSimulator } from '../../../simulator';
import { writeMovedRaster, writeTestRaster } from '../analysis/rasters';
import { BRIEF_RASTERS_MAX, LIBRARY_SELECTION_MAX } from '../../../common/library-selection';

// library:selection through the dispatcher: what the Library's selection hands to a film or a brief
// is checked in main against the library (each id once and in it, at most so many), and a film's
// rasters against one grid (CRS, bands, dated, one area); every refusal names ids[i] and why.

const SENDER = 'app://swath/index.html';

describe('library:selection', () => {
  let dir: string;
  let app: SwathApp;
  let d: Dispatcher;
  const ids: Record<string, string> = {};
  const call = (payload: unknown) => d.dispatch('library:selection', payload, SENDER) as Promise<any>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-selection-'));
    app = await createApp({ userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), version: '1.0.0', platform: 'linux', startSimulator, emit: () => undefined, keychainBackend: new MemoryKeychainBackend() });
    d = createDispatcher(app.handlers, { isAllowedSender: (u) => u === SENDER, secrets: app.secrets });
    const files: Record<string, string> = {
      june: await writeTestRaster(dir, '2026-06-15', ['B4', 'B8']),
      april: await writeTestRaster(dir, '2026-04-10', ['B4', 'B8']),
      bands: await writeMovedRaster(dir, 'bands', '2026-05-02', ['B4', 'B8', 'B11']),
      elsewhere: await writeMovedRaster(dir, 'elsewhere', '2026-05-02', ['B4', 'B8'], 0.2),
      wgs: await writeMovedRaster(dir, 'wgs', '2026-05-02', ['B4', 'B8'], 0, 4326),
    };
    const r = await d.dispatch('library:import', { paths: Object.values(files) }, SENDER) as any;
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    for (const [k, f] of Object.entries(files)) ids[k] = r.data.entries.find((e: any) => e.path === f).id;
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a film\'s rasters oldest first when they share one grid and area', async () => {
    const r = await call({ ids: [ids.june, ids.april], use: 'film' });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    expect(r.data.entries.map((e: any) => e.date)).toEqual(['2026-04-10', '2026-06-15']);
  });

  it('refuses a film of mixed bands, CRSs or areas, naming the raster', async () => {
    const refused = async (list: string[], field: string, reason: RegExp) => {
      const r = await call({ ids: list, use: 'film' });
      expect(r.ok).toBe(false);
      expect(r.error.kind).toBe('validation');
      expect(Object.keys(r.error.fields)).toEqual([field]);
      expect(r.error.message).toMatch(reason);
    };
    await refused([ids.april!, ids.june!, ids.bands!], 'ids[2]', /bands\.tif has the bands B4 B8 B11.*one band list/);
    await refused([ids.april!, ids.wgs!], 'ids[1]', /wgs\.tif is on EPSG:4326, .* on EPSG:32633: a film's frames share one grid/);
    await refused([ids.april!, ids.june!, ids.elsewhere!], 'ids[2]', /elsewhere\.tif covers another area than the rasters before it: a film shows one area/);
    // A brief takes rasters of any grid and area.
    const brief = await call({ ids: [ids.april, ids.wgs, ids.elsewhere, ids.bands], use: 'brief' });
    expect(brief.ok, JSON.stringify(brief.error)).toBe(true);
    expect(brief.data.entries).toHaveLength(4);
  });

  it('refuses ids not in the library, listed twice, none, or more than a selection or a brief holds', async () => {
    const gone = await call({ ids: [ids.april, 'no-such-raster'], use: 'brief' });
    expect(gone.error).toMatchObject({ kind: 'validation', fields: { 'ids[1]': [expect.stringMatching(/no raster no-such-raster in the library/)] } });
    const twice = await call({ ids: [ids.april, ids.june, ids.april], use: 'film' });
    expect(twice.error.fields).toEqual({ 'ids[2]': [`${ids.april} is listed twice.`] });
    const none = await call({ ids: [], use: 'film' });
    expect(none.error.fields.ids).toEqual(['Select at least one raster.']);
    const many = await call({ ids: Array.from({ length: LIBRARY_SELECTION_MAX + 1 }, (_, i) => `id-${i}`), use: 'film' });
    expect(many.error.fields.ids).toEqual([`A selection holds at most ${LIBRARY_SELECTION_MAX} rasters.`]);
    const page = await call({ ids: Array.from({ length: BRIEF_RASTERS_MAX + 1 }, () => ids.april), use: 'brief' });
    expect(page.error.fields.ids).toEqual([`a brief shows at most ${BRIEF_RASTERS_MAX} rasters, not ${BRIEF_RASTERS_MAX + 1}: select fewer.`]);
    const use = await call({ ids: [ids.april], use: 'print' });
    expect(Object.keys(use.error.fields)).toEqual(['use']);
  });
});
