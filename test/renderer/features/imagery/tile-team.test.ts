// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, makeBridge, ok, TEAM_OFF } from '../../fake-bridge';
import TileDownloads from '../../../../renderer/src/features/imagery/views/TileDownloads.vue';
import { useAoiStore } from '../../../../renderer/src/platform/stores/aoi';
import { useImageryStore } from '../../../../renderer/src/features/imagery/stores/imagery';
import { useModelsStore } from '../../../../renderer/src/platform/stores/models';
import { useSessionStore } from '../../../../renderer/src/platform/stores/session';
import { useTeamStore } from '../../../../renderer/src/features/team/stores/team';

const fake = bridgeStandIn();

const BERLIN = 'POLYGON((13.30 52.45, 13.50 52.45, 13.50 52.55, 13.30 52.55, 13.30 52.45))';
const OWNED = '9b2b6196-f9c2-81b4-9b0c-07b570f7adff';
const CLAIMED = '894ea5ad-db22-81d4-89d7-43cb10de720d';
const FREE = '1d7a4c2e-3b5f-4e6a-9c8d-0f1e2d3c4b5a';
const ONLINE = { ...TEAM_OFF, state: 'online' as const, catalogUrl: 'postgres://catalog.example/swath', sharePath: '/mnt/team', role: 'bob' };
const copy = { id: 'team-7', acquiredBy: 'alice', acquiredAt: '2026-10-03T09:12:00.000Z', date: '2026-11-12', model: 'Stratus2', bands: ['B4', 'B3', 'B2'], resolution: 10, epsg: 32633, costEur: 0.4, exact: true, differences: [], available: true };

/** Main's team check by GUID: OWNED is the team's (alice), CLAIMED is being bought by carol, FREE is nobody's. */
function teamCheck(r: { request: Record<string, unknown> }) {
  const guid = r.request.TileGuid;
  if (guid === OWNED) return ok({ state: 'owned', matches: [copy], claim: null, reason: null });
  if (guid === CLAIMED) return ok({ state: 'claimed', matches: [], claim: { holder: 'carol', expiresAt: '2026-11-26T10:00:00.000Z' }, reason: null });
  return ok({ state: 'none', matches: [], claim: null, reason: null });
}

let bridge: ReturnType<typeof makeBridge>;

async function mounted(status: typeof ONLINE | typeof TEAM_OFF) {
  bridge = makeBridge({
    serviceCall: async () => ok({ data: { Tiles: [{ Guid: OWNED, DataGeogWkt: BERLIN }, { Guid: CLAIMED }, { Guid: FREE }] } }),
    teamStatus: async () => ok(status),
    teamCheck: async (r) => teamCheck(r),
    teamUseCopy: async () => ok({ libraryId: 'lib-9', path: '/mnt/team/tiles/2026/tile.tif' }),
  });
  fake.api = bridge.api;
  useAoiStore().importText(BERLIN);
  await useModelsStore().load();
  await useSessionStore().refreshStatus();
  await useTeamStore().load();
  const imagery = useImageryStore();
  imagery.settings.Date = '2026-11-12';
  const w = mount(TileDownloads);
  await imagery.searchTiles({});
  imagery.pickedTiles = [OWNED, CLAIMED, FREE];
  await flushPromises();
  return { w, imagery };
}

beforeEach(() => setActivePinia(createPinia()));

describe('tiles the team owns, before buying them', () => {
  it('marks the picked tiles the team owns or is buying, uses the team’s copies for 0 EUR and buys only the rest', async () => {
    const { w, imagery } = await mounted(ONLINE);
    // One team check per picked tile, for the shared date and model.
    expect(bridge.api.teamCheck.mock.calls.map((c: any[]) => c[0])).toEqual([OWNED, CLAIMED, FREE].map((TileGuid) => ({
      kind: 'tile', request: { TileGuid, Date: '2026-11-12', Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'] },
    })));
    const badges = w.findAll('[data-testid="tile-team-badge"]').map((b) => b.text());
    expect(badges).toEqual(['team owns it (alice, 2026-10-03)', 'carol is buying it now']);
    const box = w.get('[data-testid="tile-team"]');
    expect(box.text()).toContain('Your team already owns 1 of the picked tiles for 2026-11-12 and Stratus2: use the team’s copies, 0.00 EUR.');
    expect(w.get('[data-testid="tile-team-claimed"]').text()).toContain('A teammate is buying 1 of them now (carol).');

    await w.get('[data-testid="tile-team-use"]').trigger('click');
    await flushPromises();
    expect(bridge.api.teamUseCopy).toHaveBeenCalledExactlyOnceWith({ id: 'team-7', mode: 'link' });
    expect(w.get('[data-testid="tile-team-used"]').text()).toBe('1 team copy added to your library, 0.00 EUR.');
    expect(imagery.pickedTiles).toEqual([CLAIMED, FREE]);

    await w.get('[data-testid="tile-team-skip-claimed"]').trigger('click');
    await flushPromises();
    expect(imagery.pickedTiles).toEqual([FREE]);
    expect(w.find('[data-testid="tile-team-badge"]').exists()).toBe(false);

    await w.get('[data-testid="download-tiles"]').trigger('click');
    await flushPromises();
    expect(bridge.api.downloadsEnqueue.mock.calls.map((c: any[]) => c[0].request.TileGuid)).toEqual([FREE]);
  });

  it('leaves owned tiles out without using them, and asks the catalog again when the date changes', async () => {
    const { w, imagery } = await mounted(ONLINE);
    await w.get('[data-testid="tile-team-skip"]').trigger('click');
    await flushPromises();
    expect(imagery.pickedTiles).toEqual([CLAIMED, FREE]);
    expect(bridge.api.teamUseCopy).not.toHaveBeenCalled();
    bridge.api.teamCheck.mockClear();
    imagery.settings.Date = '2026-11-07';
    await flushPromises();
    expect(bridge.api.teamCheck.mock.calls.map((c: any[]) => c[0].request.Date)).toEqual(['2026-11-07', '2026-11-07']);
  });

  it('asks nothing when the policy names no team library', async () => {
    const { w } = await mounted(TEAM_OFF);
    expect(bridge.api.teamCheck).not.toHaveBeenCalled();
    expect(w.find('[data-testid="tile-team"]').exists()).toBe(false);
  });
});
