import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { briefHandlers } from '../../../main/brief';
import type { Settings } from '../../../main/platform/settings';
import { briefSheetMm, channels, type RequestOf } from '../../../preload/contract';
import { briefLayout, briefPage, mapPixels, type BriefContent } from '../../../renderer/src/features/brief/model/print-page';
import { chromiumPrinter, launchPrinterChromium } from '../../support/chromium-printer';
import { decodePng, pixelAt } from '../../e2e/preview-pixels';
import { CHROMIUM, chromiumAvailable } from '../../e2e/chromium';
import { encodePng } from '../../support/png';
import { BRIEF_RASTERS_MAX } from '../../../common/library-selection';

// The brief printed by Chromium's print to PDF (the printer the browser host is handed), read back by
// poppler's tools: one page of the paper chosen, every font embedded, the map at >= 200 dpi as an
// image, the title, dates, scale label, EPSG and sources as text, and the page's pixels at known
// points equal to the map image's there.

const TOOLS = ['pdfinfo', 'pdffonts', 'pdfimages', 'pdftotext', 'pdftoppm'];
const hasTools = TOOLS.every((t) => { try { execFileSync('which', [t]); return true; } catch { return false; } });
if (!hasTools) console.warn('poppler-utils missing (pdfinfo, pdffonts, pdfimages, pdftotext, pdftoppm): brief PDF tests skipped (apt-get install poppler-utils).');
const HAS = hasTools && chromiumAvailable();

/** Four quadrants of flat colour, so a point's colour is known whatever the resampling. */
const QUADS: [number, number, number][] = [[200, 40, 40], [40, 160, 60], [40, 70, 200], [230, 200, 40]];
const quadrant = (fx: number, fy: number): number => (fx < 0.5 ? 0 : 1) + (fy < 0.5 ? 0 : 2);

function content(widthPx: number, heightPx: number, title: string): BriefContent {
  const png = encodePng(widthPx, heightPx, (x, y) => QUADS[quadrant(x / widthPx, y / heightPx)]!);
  // Berlin, about 15 km across: a 2 km bar.
  const minX = 1_480_000, maxX = 1_506_000, minY = 6_880_000;
  const maxY = minY + ((maxX - minX) * heightPx) / widthPx;
  return {
    title,
    text: 'Crop vigour after the June rains; the north field lags.',
    map: { image: `data:image/png;base64,${png.toString('base64')}`, widthPx, heightPx, extent: [minX, minY, maxX, maxY], rotation: 0 },
    rasters: [
      { title: 'S2 L2A composite', date: '2026-04-10', epsg: 32633, projectionName: 'WGS 84 / UTM zone 33N', legend: { kind: 'ramp', label: 'NDVI', unit: 'index, unitless', min: -0.2, max: 0.9, stops: [[0, '#a50026'], [0.5, '#ffffbf'], [1, '#006837']] } },
      { title: 'S2 L2A composite', date: '2026-06-15', epsg: 32633, projectionName: 'WGS 84 / UTM zone 33N', legend: null },
    ],
    aoi: [[[13.35, 52.47], [13.45, 52.47], [13.45, 52.52], [13.35, 52.52], [13.35, 52.47]]],
    aoiLabel: 'Drawn polygon, 36.5 km²',
    series: [{ label: 'NDVI mean over the AOI', unit: 'index', points: [{ date: '2026-04-10', value: 0.31 }, { date: '2026-06-15', value: 0.62 }, { date: '2026-08-20', value: 0.48 }] }],
    sources: { service: 'Demo imagery service', basemap: true, water: true, places: true },
    made: Date.UTC(2026, 7, 21, 9, 30),
  };
}

describe.skipIf(!HAS)('brief: printed to PDF and PNG by Chromium', () => {
  let browser: Browser;
  let dir: string;
  const settings = () => ({ get: () => ({ downloadDir: dir }) as Settings, set: async () => ({}) as Settings, downloadDir: () => dir });
  const signal = new AbortController().signal;
  const ctx = { senderUrl: 'app://swath/', signal };
  const run = (args: string[], file: string): string => execFileSync(args[0]!, [...args.slice(1), file], { encoding: 'utf8' });

  beforeAll(async () => {
    browser = await launchPrinterChromium(CHROMIUM);
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-brief-'));
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function request(paper: 'a4' | 'letter', orientation: 'portrait' | 'landscape', format: 'pdf' | 'png', dpi?: 150 | 300) {
    const size = briefSheetMm(paper, orientation);
    const layout = briefLayout(size);
    const px = mapPixels(layout, 220);
    const page = briefPage(content(px.width, px.height, 'Field 7 after the June rains'), size);
    return { page, layout, px, req: channels['brief:export'].request.parse({ format, paper, orientation, dpi, name: 'brief-ndvi-2026-04-10', title: 'Field 7 after the June rains', body: page.body, style: page.style } satisfies RequestOf<'brief:export'>) };
  }

  for (const [paper, orientation, points] of [['a4', 'portrait', [595.28, 841.89]], ['letter', 'landscape', [792, 612]]] as const) {
    it(`prints one ${paper} ${orientation} page with embedded fonts, the map at >= 200 dpi and its text, under 5 MB`, async () => {
      const handlers = briefHandlers({ settings: settings(), printer: chromiumPrinter(browser) });
      const { page, layout, req } = request(paper, orientation, 'pdf');
      const out = await handlers['brief:export'](req, ctx);
      expect(path.dirname(out.file)).toBe(path.join(dir, 'exports'));
      expect(path.basename(out.file)).toMatch(/^brief-ndvi-2026-04-10(-\d+)?\.pdf$/);
      expect(statSync(out.file).size).toBe(out.bytes);
      expect(out.bytes).toBeLessThan(5 * 1024 * 1024);

      const info = run(['pdfinfo'], out.file);
      expect(info).toMatch(/^Pages:\s+1$/m);
      expect(info).toMatch(/^Title:\s+Field 7 after the June rains$/m);
      const [w, h] = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info)!.slice(1).map(Number);
      expect(w).toBeCloseTo(points[0], 0);
      expect(h).toBeCloseTo(points[1], 0);

      const fonts = run(['pdffonts'], out.file).trim().split('\n').slice(2);
      expect(fonts.length).toBeGreaterThan(0);
      // Columns: name type encoding emb sub uni object ID; "emb" is the 4th from the end.
      for (const line of fonts) expect(line.trim().split(/\s+/).at(-5), line).toBe('yes');

      const images = run(['pdfimages', '-list'], out.file).trim().split('\n').slice(2).map((l) => l.trim().split(/\s+/));
      // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
      const map = images.find((c) => c[2] === 'image' && Number(c[3]) > 1000);
      expect(map, images.join('\n')).toBeDefined();
      expect(Number(map![12])).toBeGreaterThanOrEqual(200);
      expect(Number(map![13])).toBeGreaterThanOrEqual(200);

      const text = run(['pdftotext', '-layout'], out.file) + execFileSync('pdftotext', [out.file, '-'], { encoding: 'utf8' });
      for (const needle of ['Field 7 after the June rains', '2026-04-10', '2026-06-15', page.scaleLabel, 'EPSG:32633', 'Demo imagery service', 'Natural Earth', 'GeoNames', 'CC BY 4.0', 'NDVI']) {
        expect(text, needle).toContain(needle);
      }
      expect(page.scaleLabel).toBe(orientation === 'portrait' ? '2 km' : '2 km');

      // The page at 100 dpi: each quadrant's centre (a quarter of the map box in, clear of the AOI and the frame) has the map's colour.
      const png = path.join(dir, `page-${paper}`);
      execFileSync('pdftoppm', ['-r', '100', '-png', '-singlefile', out.file, png]);
      if (process.env.SWATH_BRIEF_SHOT) execFileSync('cp', [`${png}.png`, path.join(process.env.SWATH_BRIEF_SHOT, `brief-test-${paper}-${orientation}.png`)]);
      const pixels = decodePng(readFileSync(`${png}.png`));
      const box = layout.map;
      for (const [fx, fy] of [[0.12, 0.12], [0.88, 0.12], [0.12, 0.88], [0.88, 0.9]] as const) {
        const x = ((box.x + fx * box.width) / 25.4) * 100;
        const y = ((box.y + fy * box.height) / 25.4) * 100;
        const want = QUADS[quadrant(fx, fy)]!;
        const got = pixelAt(pixels, x, y);
        // Tolerance 6 per channel: the PDF's rasteriser resamples and may convert colour.
        for (let k = 0; k < 3; k++) expect(Math.abs(got[k]! - want[k]!), `${fx},${fy}: ${got} vs ${want}`).toBeLessThanOrEqual(6);
      }
    });
  }

  it('lays a selection\'s page of the most rasters a brief takes out without overlaps: each part in its box, the side column in its own, none over the sources', async () => {
    const ramp = content(10, 10, '').rasters[0]!.legend;
    for (const [paper, orientation] of [['a4', 'portrait'], ['a4', 'landscape'], ['letter', 'portrait'], ['letter', 'landscape']] as const) {
      const sheet = briefSheetMm(paper, orientation);
      const px = mapPixels(briefLayout(sheet), 20);
      const rasters = Array.from({ length: BRIEF_RASTERS_MAX }, (_, i) => ({ title: `s2-2026-0${i + 1}-15-int16.tif`, date: `2026-0${i + 1}-15`, epsg: 32633, projectionName: 'WGS 84 / UTM zone 33N', legend: ramp }));
      const page = briefPage({ ...content(px.width, px.height, 'Eight dates of one field'), rasters, series: [], text: '' }, sheet);
      const tab = await browser.newPage({ viewport: { width: Math.round((sheet.widthMm / 25.4) * 96), height: Math.round((sheet.heightMm / 25.4) * 96) } });
      await tab.setContent(`<style>${page.style}</style>${page.body}`);
      const boxes = await tab.evaluate(() => {
        const box = (el: Element) => { const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, right: r.right, bottom: r.bottom }; };
        const side = document.querySelector('.side')!;
        return {
          parts: { header: box(document.querySelector('header')!), map: box(document.querySelector('.map')!), side: box(side), sources: box(document.querySelector('[data-part="sources"]')!) },
          sideContent: [...side.children].map(box),
          page: { right: document.documentElement.clientWidth, bottom: document.documentElement.clientHeight },
        };
      });
      await tab.close();
      const where = `${paper} ${orientation}`;
      const apart = (a: { x: number; y: number; right: number; bottom: number }, b: typeof a) => a.right <= b.x + 0.5 || b.right <= a.x + 0.5 || a.bottom <= b.y + 0.5 || b.bottom <= a.y + 0.5;
      const names = Object.keys(boxes.parts) as (keyof typeof boxes.parts)[];
      for (const a of names) for (const b of names) if (a < b) expect(apart(boxes.parts[a], boxes.parts[b]), `${where}: ${a} ${JSON.stringify(boxes.parts[a])} and ${b} ${JSON.stringify(boxes.parts[b])}`).toBe(true);
      for (const c of boxes.sideContent) {
        expect(c.right, `${where}: the side column's content past its right edge`).toBeLessThanOrEqual(boxes.parts.side.right + 0.5);
        expect(c.bottom, `${where}: the side column's content past its bottom`).toBeLessThanOrEqual(boxes.parts.side.bottom + 0.5);
      }
      expect(boxes.parts.sources.bottom).toBeLessThanOrEqual(boxes.page.bottom);
    }
  });

  it('renders the same page to a PNG of the paper at 150 dpi, named with its dpi', async () => {
    const handlers = briefHandlers({ settings: settings(), printer: chromiumPrinter(browser) });
    const out = await handlers['brief:export'](request('a4', 'portrait', 'png', 150).req, ctx);
    expect(path.basename(out.file)).toMatch(/^brief-ndvi-2026-04-10-150dpi(-\d+)?\.png$/);
    const pixels = decodePng(readFileSync(out.file));
    expect(Math.abs(pixels.width - 1240)).toBeLessThanOrEqual(1);
    expect(Math.abs(pixels.height - 1754)).toBeLessThanOrEqual(1);
    expect([out.width, out.height]).toEqual([pixels.width, pixels.height]);
  });

  it('writes a second brief of the same name beside the first, never over it', async () => {
    const handlers = briefHandlers({ settings: settings(), printer: chromiumPrinter(browser) });
    const { req } = request('a4', 'portrait', 'pdf');
    const a = await handlers['brief:export'](req, ctx);
    const b = await handlers['brief:export'](req, ctx);
    expect(b.file).not.toBe(a.file);
    expect(statSync(a.file).size).toBe(a.bytes);
  });

  it('refuses a page whose style could leave its element or set the paper, a PNG without dpi, and a host without a printer', async () => {
    const handlers = briefHandlers({ settings: settings(), printer: chromiumPrinter(browser) });
    const { req } = request('a4', 'portrait', 'pdf');
    await expect(handlers['brief:export']({ ...req, style: '</style><script>alert(1)</script>' }, ctx)).rejects.toThrow(/style/);
    await expect(handlers['brief:export']({ ...req, style: '@page { size: A3 }' }, ctx)).rejects.toThrow(/@page/);
    await expect(handlers['brief:export']({ ...req, format: 'png' }, ctx)).rejects.toThrow(/dpi/);
    await expect(briefHandlers({ settings: settings() })['brief:export'](req, ctx)).rejects.toThrow(/cannot print/);
    expect(channels['brief:export'].request.safeParse({ ...req, dpi: 600 }).success).toBe(false);
  });

  it('prints no request to the network: an image from a URL stays out of the page', async () => {
    let asked = 0;
    const http = await import('node:http');
    const server = http.createServer((_q, s) => { asked++; s.end(); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (server.address() as { port: number }).port;
      const handlers = briefHandlers({ settings: settings(), printer: chromiumPrinter(browser) });
      const { req } = request('a4', 'portrait', 'pdf');
      await handlers['brief:export']({ ...req, body: `${req.body}<img src="http://127.0.0.1:${port}/x.png"><link rel="stylesheet" href="http://127.0.0.1:${port}/s.css">` }, ctx);
      expect(asked).toBe(0);
    } finally {
      server.close();
    }
  });
});
