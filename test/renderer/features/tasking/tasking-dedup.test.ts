import { describe, expect, it } from 'vitest';
import { dedupReport, describeDedupWarning, type DedupCandidate } from '../../../../renderer/src/features/tasking/model/tasking-dedup';
import { summarizeOrder } from '../../../../renderer/src/features/tasking/model/tasking-records';

const T1 = '11111111-1111-4111-8111-111111111111';
const T2 = '22222222-2222-4222-8222-222222222222';
const T3 = '33333333-3333-4333-8333-333333333333';
const M1 = '44444444-4444-4444-8444-444444444444';

const candidate: DedupCandidate = {
  model: 'Stratus2', constellations: ['Sentinel1', 'Sentinel2'], mini: false, guids: [T1, T2], recurring: true, imageFrequency: 7, referenceDate: '2025-01-01',
  bbox: [13, 52, 14, 53],
};
const earlier = (over: Record<string, unknown> = {}) => summarizeOrder({
  TaskOrderGuid: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', OrderingProcessStatus: 'UpToDate', Model: 'Stratus2', SatelliteConstellations: ['Sentinel2', 'Sentinel1'],
  From: '2025-01-01', To: null, ImageFrequency: 7, ReferenceDate: '2025-01-01', Tiles: [T1], MiniTiles: [], ...over,
});

describe('TileDeduplication consistency', () => {
  it('is quiet when the earlier order matches in every field (constellation order does not matter)', () => {
    expect(dedupReport(candidate, [earlier()])).toEqual({ related: 1, consistent: 1, warnings: [] });
  });

  it('names every differing field', () => {
    const r = dedupReport(candidate, [earlier({ Model: 'Stratus3', SatelliteConstellations: ['Sentinel1', 'Sentinel2', 'Landsat89'], To: '2025-03-01', ImageFrequency: 5, ReferenceDate: '2025-01-03' })]);
    expect(r.consistent).toBe(0);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]!.differences.map((d) => d.field)).toEqual(['Model', 'SatelliteConstellations', 'From/To behaviour', 'ImageFrequency', 'ReferenceDate']);
    expect(r.warnings[0]!.shared).toEqual([T1]);
    const text = describeDedupWarning(r.warnings[0]!);
    expect(text).toMatch(/Model \(Stratus3 → Stratus2\)/);
    expect(text).toMatch(/From\/To behaviour \(historical \(From and To\) → recurring \(To empty\)\)/);
    expect(text).toMatch(/ordered again/);
  });

  it('flags an earlier order of the other tile kind over the same ground as a tile-selection difference', () => {
    const mini = earlier({ Tiles: [], MiniTiles: [M1], Wkt: 'POLYGON((13.5 52.5, 13.6 52.5, 13.6 52.6, 13.5 52.5))' });
    const box = () => [13.5, 52.5, 13.6, 52.6];
    const r = dedupReport(candidate, [mini], box);
    expect(r.warnings[0]!.differences).toEqual([{ field: 'Tile selection', earlier: 'mini-tiles', now: 'tiles' }]);
    // Elsewhere on the map it is not related.
    expect(dedupReport(candidate, [mini], () => [20, 40, 20.1, 40.1]).related).toBe(0);
  });

  it('ignores orders that share no tile, polygon orders and cancelled orders', () => {
    const r = dedupReport(candidate, [
      earlier({ Tiles: [T3], Model: 'Nimbus' }),
      earlier({ Tiles: [], MiniTiles: [], Wkt: 'POLYGON((13 52, 14 52, 14 53, 13 52))', Model: 'Nimbus' }),
      earlier({ OrderingProcessStatus: 'Canceled', Model: 'Nimbus' }),
    ]);
    expect(r).toEqual({ related: 0, consistent: 0, warnings: [] });
  });

  it('reports fields the record does not carry as unknown rather than as differences', () => {
    const bare = summarizeOrder({ id: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', Tiles: [T2], Model: 'Nimbus' });
    const r = dedupReport(candidate, [bare]);
    expect(r.warnings[0]!.differences.map((d) => d.field)).toEqual(['Model']);
    expect(r.warnings[0]!.unknown).toEqual(['SatelliteConstellations', 'From/To behaviour', 'ImageFrequency', 'ReferenceDate']);
  });
});
