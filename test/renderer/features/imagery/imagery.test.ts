import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, fail, makeBridge, ok } from '../../fake-bridge';
import { useAoiStore } from '../../../../renderer/src/platform/stores/aoi';
import { useImageryStore } from '../../../../renderer/src/features/imagery/stores/imagery';
import { useModelsStore } from '../../../../renderer/src/platform/stores/models';
import { useSessionStore } from '../../../../renderer/src/platform/stores/session';

const fake = bridgeStandIn();

const BERLIN = 'POLYGON((13.30 52.45, 13.50 52.45, 13.50 52.55, 13.30 52.55, 13.30 52.45))';
const SEARCH = {
  ModelImageDates: [
    { Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], DatesByGeog: [{ Wkt: BERLIN, Dates: ['2026-11-02', '2026-11-07', '2026-11-12'] }] },
  ],
};

let bridge: ReturnType<typeof makeBridge>;

async function ready() {
  const aoi = useAoiStore();
  aoi.importText(BERLIN);
  await useModelsStore().load();
  await useSessionStore().refreshStatus();
  return { aoi, imagery: useImageryStore() };
}

beforeEach(() => {
  setActivePinia(createPinia());
  bridge = makeBridge({ imagerySearch: async () => ok({ data: SEARCH }) });
  fake.api = bridge.api;
});

describe('imagery store', () => {
  it('searches over the AOI and period, lists dates and picks the newest with its model', async () => {
    const { imagery } = await ready();
    await imagery.runSearch();
    const req = bridge.api.imagerySearch.mock.calls[0][0].request;
    expect(Object.keys(req)).toEqual(['Wkt', 'From', 'Until']);
    expect(req.From).toMatch(/T00:00:00Z$/);
    expect(imagery.availableDates).toEqual(['2026-11-02', '2026-11-07', '2026-11-12']);
    expect(imagery.settings.Date).toBe('2026-11-12');
    expect(imagery.settings.Model).toBe('Stratus2');
    expect(imagery.settings.SatelliteConstellations).toEqual(['Sentinel1', 'Sentinel2']);
    imagery.stepDate(-1);
    expect(imagery.settings.Date).toBe('2026-11-07');
  });

  it('sends ONE settings object to check, estimate and download, and marks results stale after an edit', async () => {
    const { imagery } = await ready();
    imagery.settings.Date = '2026-11-12';
    expect(await imagery.check()).toBe(true);
    expect(await imagery.estimate()).toBe(true);
    expect(await imagery.download()).toBe(true);
    const checked = bridge.api.imageryAvailable.mock.calls[0][0].request;
    const estimated = bridge.api.imageryEstimate.mock.calls[0][0].request;
    const downloaded = bridge.api.downloadsEnqueue.mock.calls[0][0];
    expect(estimated).toEqual(checked);
    expect(downloaded).toEqual({ kind: 'composite', request: checked });
    expect(checked).toMatchObject({ Date: '2026-11-12', Model: 'Stratus2', Resolution: 10, EpsgProjection: 32633, Bandnames: 'rgb', UtmDataSelectionMode: 'combined_utm' });
    expect('GeoJson' in checked).toBe(false);
    expect('UploadUrl' in checked).toBe(false);
    expect(imagery.checkStale).toBe(false);
    imagery.settings.Resolution = 20;
    expect(imagery.checkStale).toBe(true);
    expect(imagery.estimateStale).toBe(true);
    imagery.settings.Resolution = 10;
    expect(imagery.checkStale).toBe(false);
    useAoiStore().setMode('GeoJson');
    expect(imagery.checkStale).toBe(true);
  });

  it('leaves the UTM-only fields out for non-UTM EPSG codes, and follows the AOI zone until told otherwise', async () => {
    const { imagery, aoi } = await ready();
    imagery.settings.Date = '2026-11-12';
    expect(imagery.utmEnabled).toBe(true);
    imagery.setEpsg(4326);
    expect(imagery.utmEnabled).toBe(false);
    expect(imagery.compositeRequest).not.toHaveProperty('UtmDataSelectionMode');
    expect(imagery.compositeRequest).not.toHaveProperty('UtmGridForcePixelResolutionSize');
    aoi.importText('POLYGON((-43.3 -22.9, -43.1 -22.9, -43.1 -22.8, -43.3 -22.8, -43.3 -22.9))');
    expect(imagery.settings.EpsgProjection).toBe(4326);
    imagery.setEpsg(null, true);
    expect(imagery.settings.EpsgProjection).toBe(32723);
  });

  it('keeps required constellations locked on', async () => {
    const { imagery } = await ready();
    imagery.toggleConstellation('Sentinel1', false);
    expect(imagery.settings.SatelliteConstellations).toContain('Sentinel1');
    imagery.toggleConstellation('Landsat89', true);
    expect(imagery.settings.SatelliteConstellations).toEqual(['Sentinel1', 'Sentinel2', 'Landsat89']);
    imagery.setModel('Nimbus');
    expect(imagery.settings.SatelliteConstellations).toEqual(['Sentinel2L1']);
  });

  it('checks on the client first: bad Bandnames or too many bands never reach the service', async () => {
    const { imagery } = await ready();
    imagery.settings.Date = '2026-11-12';
    imagery.settings.Bandnames = 'rgb,B8';
    expect(await imagery.check()).toBe(false);
    expect(bridge.api.imageryAvailable).not.toHaveBeenCalled();
    expect(imagery.fieldReasons('Bandnames')[0]).toMatch(/"rgb" must be used alone/);
    imagery.settings.Bandnames = 'B2,B3,B4,B5,B6,B7,B8,B8A,B11,B12,[B8_B4],[B3_B8],ndvi';
    expect(imagery.fieldReasons('Bandnames')[0]).toMatch(/13 output bands exceed/);
  });

  it('shows the service field errors of the failed step next to their fields', async () => {
    bridge.api.imageryAvailable.mockResolvedValueOnce(fail('validation', 'One or more validation errors occurred.', { EpsgProjection: ['EPSG 2154 is not supported.'] }));
    const { imagery } = await ready();
    imagery.settings.Date = '2026-11-12';
    imagery.setEpsg(2154);
    expect(await imagery.check()).toBe(false);
    expect(imagery.fieldReasons('EpsgProjection')).toEqual(['EPSG 2154 is not supported.']);
    expect(imagery.lastFailure?.step).toBe('check');
  });

  it('downloads picked tiles and mini-tiles with the shared date and model', async () => {
    bridge.api.serviceCall.mockResolvedValueOnce(
      ok({ data: { Tiles: [{ Guid: '9b2b6196-f9c2-81b4-9b0c-07b570f7adff', MiniTile: true, DataGeogWkt: BERLIN }, { Guid: '894ea5ad-db22-81d4-89d7-43cb10de720d', MiniTile: true }] } }),
    );
    const { imagery } = await ready();
    imagery.settings.Date = '2026-11-12';
    await imagery.searchTiles({ MiniTiles: true });
    expect(bridge.api.serviceCall.mock.calls[0][0]).toMatchObject({ key: 'tasking.searchTiles', body: { Wkt: expect.any(String), MiniTiles: true } });
    expect(imagery.tiles.map((t) => t.mini)).toEqual([true, true]);
    imagery.togglePick('9b2b6196-f9c2-81b4-9b0c-07b570f7adff');
    expect(await imagery.downloadTiles()).toBe(1);
    expect(bridge.api.downloadsEnqueue.mock.calls[0][0]).toEqual({
      kind: 'minitile',
      request: { MiniTileGuid: '9b2b6196-f9c2-81b4-9b0c-07b570f7adff', Date: '2026-11-12', Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'] },
    });
  });

  it('sends the deprecated legacy query with the AOI as WKT whatever the mode', async () => {
    const { imagery, aoi } = await ready();
    aoi.setMode('GeoJson');
    await imagery.runLegacy({ From: '2026-10-01', To: '2026-11-01' });
    expect(bridge.api.serviceCall.mock.calls[0][0]).toEqual({ key: 'satelliteImages.geographyComposite', body: { Wkt: expect.stringMatching(/^POLYGON/), From: '2026-10-01', To: '2026-11-01' } });
  });
});
