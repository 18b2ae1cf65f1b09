import { describe, expect, it } from 'vitest';
import { briefSheetMm } from '../../../../preload/contract';
import { briefLayout, briefPage, escapeHtml, gridLine, mapPixels, type BriefContent } from '../../../../renderer/src/features/brief/model/print-page';
import { briefName } from '../../../../renderer/src/features/brief/stores/brief';

const content = (over: Partial<BriefContent> = {}): BriefContent => ({
  title: 'Field <7> & "north"',
  text: '',
  map: { image: 'data:image/png;base64,AAAA', widthPx: 100, heightPx: 80, extent: [1_480_000, 6_880_000, 1_506_000, 6_900_800], rotation: 0 },
  rasters: [{ title: 'a.tif', date: '2026-04-10', epsg: 32633, projectionName: 'EPSG:32633 · WGS 84 / UTM zone 33N', legend: null }],
  aoi: null,
  aoiLabel: null,
  series: null,
  sources: { service: 'Demo', basemap: true },
  made: Date.UTC(2026, 3, 11),
  ...over,
});

describe('the brief print page', () => {
  it('lays the map out inside the sheet, beside the side column in landscape and above it in portrait', () => {
    for (const [paper, orientation] of [['a4', 'portrait'], ['a4', 'landscape'], ['letter', 'portrait'], ['letter', 'landscape']] as const) {
      const sheet = briefSheetMm(paper, orientation);
      const { map, side } = briefLayout(sheet);
      expect(map.x).toBeGreaterThan(0);
      expect(map.x + map.width).toBeLessThan(sheet.widthMm);
      expect(map.y + map.height).toBeLessThan(sheet.heightMm);
      if (orientation === 'landscape') expect(side.x).toBeGreaterThan(map.x + map.width);
      else expect(side.y).toBeGreaterThan(map.y + map.height);
      // The map at 220 dpi is at least 200 dpi at its printed size.
      expect(mapPixels(briefLayout(sheet), 220).width / (map.width / 25.4)).toBeGreaterThanOrEqual(200);
    }
  });

  it('says whose each legend is when the page shows several rasters (a selection), and not for one', () => {
    const ramp = { kind: 'ramp' as const, label: 'B4', unit: 'reflectance', min: 0, max: 1, stops: [[0, '#000000'], [1, '#ffffff']] as [number, string][] };
    const raster = (date: string | null, title: string) => ({ title, date, epsg: 32633, projectionName: 'EPSG:32633', legend: ramp });
    const titles = (body: string) => [...body.matchAll(/<div class="legend-title">(.*?)<\/div>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
    const two = briefPage(content({ rasters: [raster('2026-08-20', 'east.tif'), raster(null, 'undated.tif')] }), briefSheetMm('a4', 'landscape'));
    expect(titles(two.body)).toEqual(['B4 (reflectance) · 2026-08-20', 'B4 (reflectance) · undated.tif']);
    const one = briefPage(content({ rasters: [raster('2026-08-20', 'east.tif')] }), briefSheetMm('a4', 'landscape'));
    expect(titles(one.body)).toEqual(['B4 (reflectance)']);
  });

  it('escapes every text it is given, so a title or a note cannot add markup', () => {
    const page = briefPage(content({ text: '<img src=x onerror=alert(1)>' }), briefSheetMm('a4', 'portrait'));
    expect(page.body).toContain('Field &lt;7&gt; &amp; &quot;north&quot;');
    expect(page.body).not.toContain('<img src=x');
    expect(escapeHtml(`<a href='x'>`)).toBe('&lt;a href=&#39;x&#39;&gt;');
  });

  it('names the grid once, the scale bar for the ground width at the centre, and the sources', () => {
    const page = briefPage(content(), briefSheetMm('a4', 'landscape'));
    // 26 km of Web Mercator at 52.4°N is about 15.9 km on the ground: a 2 km bar.
    expect(page.scaleLabel).toBe('2 km');
    expect(page.body).toContain('2 km');
    expect(gridLine(content().rasters)).toMatch(/^Grid: EPSG:32633 · WGS 84 \/ UTM zone 33N · map/);
    expect(gridLine([{ title: 'b', date: null, epsg: 4326, projectionName: 'WGS 84', legend: null }])).toMatch(/^Grid: EPSG:4326 \(WGS 84\)/);
    expect(page.body).toContain('Imagery: Demo');
    expect(page.body).toContain('Natural Earth');
  });

  it('draws the AOI where the extent puts it and leaves the chart out without a series', () => {
    const page = briefPage(content({ aoi: [[[13.3, 52.42], [13.4, 52.42], [13.4, 52.5], [13.3, 52.42]]], aoiLabel: 'AOI' }), briefSheetMm('a4', 'portrait'));
    const d = /<path d="(M[^"]+Z)" fill="none" stroke="#d81b60"/.exec(page.body)![1]!;
    const first = d.slice(1).split(' ').slice(0, 2).map(Number);
    const box = briefLayout(briefSheetMm('a4', 'portrait')).map;
    // 13.3°E is x = 1 480 549 m: (549 / 26 000) of the width in.
    expect(first[0]).toBeCloseTo((((6378137 * 13.3 * Math.PI) / 180 - 1_480_000) / 26_000) * box.width, 1);
    expect(page.body).not.toContain('class="chart"');
  });
});

describe('brief file names', () => {
  it('say what the brief is: its title and dates, in the characters main accepts', () => {
    expect(briefName('NDVI, Field 7 — June!', ['2026-06-15'])).toBe('brief-ndvi-field-7-june-2026-06-15');
    expect(briefName('Crops', ['2026-08-20', '2026-04-10', '2026-06-15'])).toBe('brief-crops-2026-04-10_2026-08-20');
    expect(briefName('', [])).toBe('brief');
    expect(briefName('x'.repeat(300), [])).toMatch(/^brief-x{60}$/);
  });
});
