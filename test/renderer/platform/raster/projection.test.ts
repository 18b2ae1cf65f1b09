import { get as getProjection, transform } from 'ol/proj';
import { describe, expect, it } from 'vitest';
import { ensureProjection, lookupEpsg, UnknownProjectionError, utmDefinition, withoutGrids } from '../../../../renderer/src/platform/raster/projection';
import { FIXTURES, gdalRecord } from '../../../fixtures/rasters';

describe('projection registration', () => {
  it('places every fixture\'s GDAL lon/lat probe on the pixel GDAL found (4326, 3857, UTM north and south, EPSG:2154)', async () => {
    for (const f of FIXTURES) {
      const rec = gdalRecord(f.name);
      const info = await ensureProjection(rec.epsg!);
      expect(getProjection(info.code), f.name).toBeTruthy();
      const [ox, px, , oy, , py] = rec.geoTransform as [number, number, number, number, number, number];
      for (const g of rec.geo) {
        const [x, y] = transform([g.lon, g.lat], 'EPSG:4326', info.code);
        expect([Math.floor((x! - ox) / px), Math.floor((y! - oy) / py)], `${f.name} ${g.lon},${g.lat}`).toEqual([g.pixel, g.line]);
      }
    }
  });

  it('names what it registered', async () => {
    expect((await ensureProjection(32633)).name).toBe('WGS 84 / UTM zone 33N');
    expect((await ensureProjection(32756)).name).toBe('WGS 84 / UTM zone 56S');
    expect((await ensureProjection(2154)).name).toBe('RGF93 v1 / Lambert-93');
    expect((await ensureProjection(4326)).proj4).toBeNull();
    expect(utmDefinition(32760)).toContain('+south');
    expect(utmDefinition(32661)).toBeNull();
  });

  it('loads any code of the bundled set on demand, once, even when asked twice at the same time', async () => {
    const [a, b] = await Promise.all([ensureProjection(3035), ensureProjection(3035)]);
    expect(a).toBe(b);
    expect(a.name).toMatch(/LAEA Europe/);
    // ETRS89-LAEA false origin: 52N 10E is (4321000, 3210000).
    const [x, y] = transform([10, 52], 'EPSG:4326', 'EPSG:3035');
    expect(x).toBeCloseTo(4321000, 0);
    expect(y).toBeCloseTo(3210000, 0);
    expect(await lookupEpsg(999999)).toBeNull();
  });

  it('refuses an unknown code with a message that says why, not a blank map', async () => {
    await expect(ensureProjection(99999)).rejects.toBeInstanceOf(UnknownProjectionError);
    await expect(ensureProjection(99999)).rejects.toThrow(/EPSG:99999 is not in Swath's offline projection set/);
    await expect(ensureProjection(-1)).rejects.toThrow(/EPSG:-1/);
  });

  it('drops datum grids Swath does not bundle and says positions are approximate', async () => {
    expect(withoutGrids('+proj=tmerc +nadgrids=OSTN15_NTv2_OSGBtoETRS.gsb +units=m')).toEqual({
      def: '+proj=tmerc +units=m', note: expect.stringMatching(/OSTN15_NTv2_OSGBtoETRS.gsb is not bundled/),
    });
    expect(withoutGrids('+proj=longlat +nadgrids=@null +no_defs')).toEqual({ def: '+proj=longlat +no_defs' });
    const osgb = await ensureProjection(27700);
    expect(osgb.note).toMatch(/not bundled/);
    // Still usable: London lands within a few hundred metres of its true British National Grid position.
    const [x, y] = transform([-0.1276, 51.5072], 'EPSG:4326', 'EPSG:27700');
    expect(Math.abs(x! - 530047)).toBeLessThan(300);
    expect(Math.abs(y! - 180422)).toBeLessThan(300);
  });
});
