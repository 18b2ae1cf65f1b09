import { describe, expect, it } from 'vitest';
import { briefSheetMm } from '../../../../preload/contract';
import { briefLayout, briefPage, escapeHtml, gridLine, mapPixels, notesRoom, SERIES_COLOURS, type BriefContent } from '../../../../renderer/src/features/brief/model/print-page';
import { fitText, textWidthMm, wrapLines } from '../../../../renderer/src/features/brief/model/text-fit';
import { briefName } from '../../../../renderer/src/features/brief/stores/brief';

const content = (over: Partial<BriefContent> = {}): BriefContent => ({
  title: 'Field <7> & "north"',
  text: '',
  map: { image: 'data:image/png;base64,AAAA', widthPx: 100, heightPx: 80, extent: [1_480_000, 6_880_000, 1_506_000, 6_900_800], rotation: 0 },
  rasters: [{ title: 'a.tif', date: '2026-04-10', epsg: 32633, projectionName: 'EPSG:32633 · WGS 84 / UTM zone 33N', legend: null }],
  aoi: null,
  aoiLabel: null,
  series: [],
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

  it('says whose each legend is when the page shows several rasters, shows a legend they share once, and puts one beside each raster past two', () => {
    const ramp = (max: number) => ({ kind: 'ramp' as const, label: 'B4', unit: 'reflectance', min: 0, max, stops: [[0, '#000000'], [1, '#ffffff']] as [number, string][] });
    const raster = (date: string | null, title: string, max = 1) => ({ title, date, epsg: 32633, projectionName: 'EPSG:32633', legend: ramp(max) });
    const titles = (body: string) => [...body.matchAll(/<div class="legend-title line">(.*?)<\/div>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
    const sheet = briefSheetMm('a4', 'landscape');
    const two = briefPage(content({ rasters: [raster('2026-08-20', 'east.tif'), raster(null, 'undated.tif', 0.5)] }), sheet);
    expect(titles(two.body)).toEqual(['B4 (reflectance) · 2026-08-20', 'B4 (reflectance) · undated.tif']);
    const shared = briefPage(content({ rasters: [raster('2026-08-20', 'east.tif'), raster('2026-09-01', 'west.tif'), raster('2026-09-11', 'north.tif')] }), sheet);
    expect(titles(shared.body)).toEqual(['B4 (reflectance)']);
    expect(shared.layout.legends).toBe('blocks');
    const one = briefPage(content({ rasters: [raster('2026-08-20', 'east.tif')] }), sheet);
    expect(titles(one.body)).toEqual(['B4 (reflectance)']);
    const three = briefPage(content({ rasters: [raster('2026-08-20', 'a.tif', 1), raster('2026-09-01', 'b.tif', 0.8), raster('2026-09-11', 'c.tif', 0.6)] }), sheet);
    expect(three.layout.legends).toBe('rows');
    expect(titles(three.body)).toEqual([]);
    const rows = [...three.body.matchAll(/<div class="line row"><b>(.*?)<\/b>(.*?)<\/div>/g)].map((m) => [m[1], m[2]!.replace(/<[^>]+>/g, '').trim()]);
    expect(rows).toEqual([['2026-08-20', 'B4  0–1 · a.tif'], ['2026-09-01', 'B4  0–0.8 · b.tif'], ['2026-09-11', 'B4  0–0.6 · c.tif']]);
  });

  it('draws each of several fields as its own line of one chart, named in its legend; a series without a valid date draws nothing', () => {
    const s = (label: string, values: (number | null)[]) => ({ label, unit: 'index', points: values.map((value, i) => ({ date: `2026-0${i + 1}-01`, value })) });
    const page = briefPage(content({ series: [s('Parcel A · ndvi mean', [0.2, null, 0.4]), s('Parcel B · ndvi mean', [0.3, 0.5, 0.6]), s('Parcel C · ndvi mean', [null, null, null])] }), briefSheetMm('a4', 'landscape'));
    const chart = /<svg class="chart"[\s\S]*?<\/svg>/.exec(page.body)![0];
    expect([...chart.matchAll(/<path d="M[^"]+" fill="none" stroke="(#[0-9a-f]{6})" stroke-width="0.4"/g)].map((m) => m[1])).toEqual([SERIES_COLOURS[0], SERIES_COLOURS[1]]);
    // The invalid date of A is left out: two dots for A, three for B.
    expect(chart.match(/<circle/g)).toHaveLength(5);
    const legend = [...page.body.matchAll(/<div class="line row"><svg[^>]*>.*?<\/svg> (.*?)<\/div>/g)].map((m) => m[1]);
    expect(legend).toEqual(['Parcel A · ndvi mean', 'Parcel B · ndvi mean']);
    expect(page.body).toContain('Time series of 2 fields');
    expect(page.layout.chartHeight).toBeGreaterThanOrEqual(26);
  });

  it('sets long notes smaller, to a floor, and past it shows what fits and says plainly how much', () => {
    const sheet = briefSheetMm('a4', 'landscape');
    const parts = (text: string) => ({ rasters: content().rasters, series: [], text, title: 'T', aoi: null });
    expect(notesRoom(parts('A short note.'), sheet)).toEqual({ chars: 13, shown: 13, pt: 8.5, cut: false });
    const long = 'word '.repeat(400).trim();
    const room = notesRoom(parts(long), sheet);
    expect(room.cut).toBe(false);
    expect(room.pt).toBeLessThan(8.5);
    const longest = 'words and more words '.repeat(400).trim();
    const cut = notesRoom(parts(longest), sheet);
    expect(cut).toMatchObject({ chars: longest.length, pt: 6.5, cut: true });
    const page = briefPage(content({ text: longest }), sheet);
    expect(page.body).toContain(`[Cut: ${cut.shown} of ${longest.length} characters shown]`);
    // Cut at a word: what is shown is the text's start, ending on a whole word.
    expect(longest.startsWith(page.layout.notes!.shown)).toBe(true);
    expect(page.layout.notes!.shown).toMatch(/(words|and|more)$/);
  });

  it('wraps text as the browser does: at spaces, a word wider than the box broken where it reaches it, and each new line kept', () => {
    const w = textWidthMm('abc', 10);
    expect(wrapLines('abc abc abc', w + textWidthMm(' ', 10) + 0.01, 10)).toEqual(['abc ', 'abc ', 'abc']);
    expect(wrapLines('abcabcabc', w + 0.01, 10)).toEqual(['abc', 'abc', 'abc']);
    expect(wrapLines('a\n\nb', 50, 10)).toEqual(['a', '', 'b']);
    expect(fitText('abc abc', w + 0.01, 100, [10]).lines).toBe(2);
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
