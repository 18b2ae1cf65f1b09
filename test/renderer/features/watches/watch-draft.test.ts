import { describe, expect, it } from 'vitest';
import { summarizeOrder } from '../../../../renderer/src/features/tasking/model/tasking-records';
import { draftFromOrder, watchGeometry } from '../../../../renderer/src/features/watches/model/watch-draft';

const WKT = 'POLYGON((13.8 52.3, 14 52.3, 14 52.4, 13.8 52.4, 13.8 52.3))';

describe('watch drafts', () => {
  it('prefills a watch from an order row of either answer style, with the area\'s UTM zone', () => {
    const production = summarizeOrder({ TaskOrderGuid: '0b8f6f53-7b5e-4a43-9f7e-111111111111', OrderingProcessStatus: 'UpToDate', From: '2026-09-25', To: null, Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], Wkt: WKT });
    const variantRow = { orderId: '0b8f6f53-7b5e-4a43-9f7e-111111111111', state: 'UpToDate', start: '2026-09-25T00:00:00Z', end: null, model: 'Stratus2', sensors: ['Sentinel1', 'Sentinel2'], wkt: WKT };
    const productionRow = { TaskOrderGuid: '0b8f6f53-7b5e-4a43-9f7e-111111111111', SatelliteConstellations: ['Sentinel1', 'Sentinel2'] };
    for (const [s, row] of [[production, productionRow], [summarizeOrder(variantRow), variantRow]] as const) {
      const d = draftFromOrder(s, {}, row)!;
      expect(d).toMatchObject({ source: { kind: 'order', orderId: '0b8f6f53-7b5e-4a43-9f7e-111111111111', recurring: true }, model: 'Stratus2', constellations: ['Sentinel1', 'Sentinel2'], from: '2026-09-25', to: null });
      expect(d.settings.EpsgProjection).toBe(32633);
      expect(watchGeometry(d.area)?.type).toBe('Polygon');
    }
    // A historical order keeps its end; a row without an area cannot be watched.
    expect(draftFromOrder(summarizeOrder({ TaskOrderGuid: '0b8f6f53-7b5e-4a43-9f7e-222222222222', From: '2026-07-01', To: '2026-08-01', Model: 'Stratus2', SatelliteConstellations: ['Sentinel2'], Wkt: WKT }))!.to).toBe('2026-08-01');
    expect(draftFromOrder(summarizeOrder({ TaskOrderGuid: '0b8f6f53-7b5e-4a43-9f7e-333333333333', From: '2026-07-01', Model: 'Stratus2', SatelliteConstellations: ['Sentinel2'] }))).toBeNull();
  });
});
