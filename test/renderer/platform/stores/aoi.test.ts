import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, makeBridge } from '../../fake-bridge';
import { useAoiStore } from '../../../../renderer/src/platform/stores/aoi';
import { useSessionStore } from '../../../../renderer/src/platform/stores/session';

const fake = bridgeStandIn();

const BERLIN = 'POLYGON((13.25 52.40, 13.60 52.40, 13.60 52.60, 13.25 52.60, 13.25 52.40))';

beforeEach(() => {
  setActivePinia(createPinia());
  fake.api = makeBridge().api;
});

describe('aoi store', () => {
  it('imports WKT, reports area, vertices and UTM zone, and sends exactly one of Wkt or GeoJson', () => {
    const aoi = useAoiStore();
    expect(aoi.importText(BERLIN)).toEqual({ ok: true });
    expect(aoi.valid).toBe(true);
    expect(aoi.areaKm2).toBeCloseTo(526.9, 0);
    expect(aoi.vertexCount).toBe(4);
    expect(aoi.utmEpsg).toBe(32633);
    expect(aoi.mode).toBe('Wkt');
    const wkt = aoi.toRequest();
    expect(Object.keys(wkt)).toEqual(['Wkt']);
    expect((wkt as { Wkt: string }).Wkt).toMatch(/^POLYGON\(\(13\.25 52\.4,/);
    aoi.setMode('GeoJson');
    const gj = aoi.toRequest();
    expect(Object.keys(gj)).toEqual(['GeoJson']);
    expect(gj).toEqual({ GeoJson: { type: 'Polygon', coordinates: [[[13.25, 52.4], [13.6, 52.4], [13.6, 52.6], [13.25, 52.6], [13.25, 52.4]]] } });
  });

  it('takes the encoding of an imported GeoJSON as the default mode', () => {
    const aoi = useAoiStore();
    aoi.importText(JSON.stringify({ type: 'Feature', geometry: { type: 'Polygon', coordinates: [[[0, 0], [0.1, 0], [0.1, 0.1], [0, 0]]] } }));
    expect(aoi.mode).toBe('GeoJson');
    expect(Object.keys(aoi.toRequest())).toEqual(['GeoJson']);
  });

  it('keeps a non-polygon visible but refuses to send it, naming the problem', () => {
    const aoi = useAoiStore();
    aoi.importText('POINT(13 52)');
    expect(aoi.geometry?.type).toBe('Point');
    expect(aoi.valid).toBe(false);
    expect(aoi.problems[0]!.message).toMatch(/Not a polygon/);
    expect(() => aoi.toRequest()).toThrow(/Not a polygon/);
  });

  it('flags an AOI above the account max composite area from service:status', async () => {
    const session = useSessionStore();
    await session.refreshStatus();
    const aoi = useAoiStore();
    aoi.importText('POLYGON((10 50, 11 50, 11 51, 10 51, 10 50))');
    expect(aoi.valid).toBe(true);
    expect(aoi.compositeReady).toBe(false);
    expect(aoi.problems).toEqual([expect.objectContaining({ code: 'too-large', message: expect.stringContaining('2,500 km²') })]);
  });

  it('offers to close an unclosed ring, and counts revisions', () => {
    const aoi = useAoiStore();
    const r0 = aoi.revision;
    aoi.importText('POLYGON((10 50, 10.1 50, 10.1 50.1, 10 50.1))');
    expect(aoi.problems.map((p) => p.code)).toEqual(['unclosed-ring']);
    aoi.closeRings();
    expect(aoi.problems).toEqual([]);
    expect(aoi.revision).toBe(r0 + 2);
    aoi.clear();
    expect(aoi.geometry).toBeNull();
    expect(() => aoi.toRequest()).toThrow();
  });

  it('reports why unreadable text was refused, keeping the previous AOI', () => {
    const aoi = useAoiStore();
    aoi.importText(BERLIN);
    expect(aoi.importText('POLYGON((1 2')).toMatchObject({ ok: false });
    expect(aoi.importError).toMatch(/WKT/);
    expect(aoi.valid).toBe(true);
  });

  it('imports files by extension only', async () => {
    const aoi = useAoiStore();
    const wrong = await aoi.importFile(new File(['x'], 'scene.tif'));
    expect(wrong).toMatchObject({ ok: false, message: expect.stringContaining('.geojson') });
    const good = await aoi.importFile(new File([BERLIN], 'berlin.wkt'));
    expect(good).toEqual({ ok: true });
    expect(aoi.label).toBe('berlin.wkt');
    expect(aoi.source).toBe('file');
  });
});
