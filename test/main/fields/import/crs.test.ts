import proj4 from 'proj4';
import { describe, expect, it } from 'vitest';
import { epsgOfWkt, parcelCrs, projStringFor, toLonLat } from '../../../../main/fields/import/crs.js';

const ESRI_UTM33 = 'PROJCS["WGS_1984_UTM_Zone_33N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",15.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]';
/** British National Grid, with its 7-parameter shift to WGS 84 (proj4's general path). */
const BNG = 'PROJCS["OSGB 1936 / British National Grid",GEOGCS["OSGB 1936",DATUM["OSGB_1936",SPHEROID["Airy 1830",6377563.396,299.3249646],TOWGS84[446.448,-125.157,542.06,0.15,0.247,0.842,-20.489]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",49],PARAMETER["central_meridian",-2],PARAMETER["scale_factor",0.9996012717],PARAMETER["false_easting",400000],PARAMETER["false_northing",-100000],UNIT["metre",1],AUTHORITY["EPSG","27700"]]';

describe('parcel CRSs', () => {
  it('names the EPSG code of a WKT by its authority or an ESRI name, and uses Swath\'s PROJ string for known codes', () => {
    expect(epsgOfWkt(ESRI_UTM33)).toBe(32633);
    expect(epsgOfWkt(BNG)).toBe(27700);
    expect(epsgOfWkt('GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]')).toBe(4326);
    expect(parcelCrs({ epsg: null, wkt: ESRI_UTM33 }, 'the .prj file')).toEqual({ epsg: 32633, proj4: projStringFor(32633), wkt: ESRI_UTM33 });
    expect(parcelCrs({ epsg: null, wkt: BNG }, 'the .prj file')).toEqual({ epsg: 27700, proj4: BNG, wkt: BNG });
    expect(() => parcelCrs({ epsg: 9999, wkt: null }, 'srs_id 9999')).toThrow(/srs_id 9999 names EPSG:9999 without a WKT definition/);
    expect(() => parcelCrs({ epsg: null, wkt: 'PROJCS["nonsense"]' }, 'the .prj file')).toThrow(/^the .prj file: proj4 cannot read its WKT definition/);
  });

  it('projects to lon/lat as proj4\'s general transform does, on its shortcut for WGS 84 projections and off it', () => {
    for (const [crs, x0, y0] of [[parcelCrs({ epsg: 32633, wkt: null }, 'x'), 300_000, 5_000_000], [parcelCrs({ epsg: 25832, wkt: null }, 'x'), 400_000, 5_500_000], [parcelCrs({ epsg: null, wkt: BNG }, 'x'), 300_000, 400_000]] as const) {
      const ours = toLonLat(crs)!;
      const general = proj4(crs.proj4, 'EPSG:4326');
      for (let i = 0; i < 50; i++) {
        const p: [number, number] = [x0 + i * 4321, y0 + i * 8765];
        const [lon, lat] = general.forward(p);
        const [olon, olat] = ours(p[0], p[1]);
        expect(Math.abs(olon - lon!)).toBeLessThan(1e-12);
        expect(Math.abs(olat - lat!)).toBeLessThan(1e-12);
      }
    }
    expect(toLonLat(parcelCrs({ epsg: 4326, wkt: null }, 'x'))).toBeNull();
  });
});
