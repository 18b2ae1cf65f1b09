import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIEF_RASTERS_MAX } from '../../../common/library-selection';
import { briefHandlers } from '../../../main/brief';
import type { Settings } from '../../../main/platform/settings';
import { briefSheetMm, channels, type RequestOf } from '../../../preload/contract';
import { BRIEF_NOTES_MAX, BRIEF_SERIES_MAX } from '../../../renderer/src/features/brief/model/limits';
import { briefLayout, briefPage, mapPixels, notesRoom, type BriefContent, type BriefLegend } from '../../../renderer/src/features/brief/model/print-page';
import { textWidthMm } from '../../../renderer/src/features/brief/model/text-fit';
import { CHROMIUM, chromiumAvailable } from '../../e2e/chromium';
import { chromiumPrinter, launchPrinterChromium } from '../../support/chromium-printer';
import { encodePng } from '../../support/png';

// The brief's worst cases, printed by Chromium's print to PDF and read back by poppler: the most
// rasters a brief takes (each with a legend of its own), a chart of the most fields, the longest
// notes the dialog takes and a long title, on each paper and orientation. One page, every raster's
// date, the title, the scale bar's label, the EPSG, the sources and the end of the notes (or the
// page's statement of how much of them is shown) as text; and, in the page, no part past its box.

const TOOLS = ['pdfinfo', 'pdftotext', 'pdftoppm'];
const hasTools = TOOLS.every((t) => { try { execFileSync('which', [t]); return true; } catch { return false; } });
const HAS = hasTools && chromiumAvailable();
const SHOTS = process.env.SWATH_BRIEF_SHOT;

const SHEETS = [['a4', 'portrait'], ['a4', 'landscape'], ['letter', 'portrait'], ['letter', 'landscape']] as const;
const ramp = (i: number): BriefLegend => ({ kind: 'ramp', label: 'NDVI', unit: 'index, unitless', min: -0.2 + i / 100, max: 0.9 - i / 100, stops: [[0, '#a50026'], [0.5, '#ffffbf'], [1, '#006837']] });
const dates = Array.from({ length: BRIEF_RASTERS_MAX }, (_, i) => `2026-0${i + 1}-1${i}`);
/** Prose, with the last words marked so the text's end is found. */
const prose = (chars: number): string => {
  const words = 'The north field lags the others by about two weeks after the June rains; the drains along its western edge are worth a visit before the harvest. '.repeat(20);
  return `${words.slice(0, chars - 12).trimEnd()} ENDOFNOTES.`;
};

function worst(widthPx: number, heightPx: number, text: string): BriefContent {
  const png = encodePng(widthPx, heightPx, (x, y) => [40 + (x % 200), 120, 60 + (y % 150)]);
  const minX = 1_480_000, maxX = 1_506_000, minY = 6_880_000;
  return {
    title: 'Winter wheat across the eight dates of the season in the Havelland fields, north block and its drains near the canal',
    text,
    map: { image: `data:image/png;base64,${png.toString('base64')}`, widthPx, heightPx, extent: [minX, minY, maxX, minY + ((maxX - minX) * heightPx) / widthPx], rotation: 0 },
    rasters: dates.map((d, i) => ({ title: `S2B_MSIL2A_${d.replaceAll('-', '')}_T33UUU_clip.tif`, date: d, epsg: 32633, projectionName: 'WGS 84 / UTM zone 33N', legend: ramp(i) })),
    aoi: [[[13.35, 52.47], [13.45, 52.47], [13.45, 52.52], [13.35, 52.52], [13.35, 52.47]]],
    aoiLabel: 'Drawn polygon, 36.5 km²',
    series: Array.from({ length: BRIEF_SERIES_MAX }, (_, k) => ({
      label: `Parcel DE-BB-${1040 + k} · ndvi mean`, unit: 'index',
      points: dates.map((d, i) => ({ date: d, value: i === 3 ? null : 0.2 + 0.05 * i + 0.02 * k })),
    })),
    sources: { service: 'Demo imagery service', basemap: true, water: true, places: true, online: '© OpenStreetMap contributors' },
    made: Date.UTC(2026, 7, 21, 9, 30),
  };
}

describe.skipIf(!HAS)('brief: the worst cases fit one page', () => {
  let browser: Browser;
  let dir: string;
  const settings = () => ({ get: () => ({ downloadDir: dir }) as Settings, set: async () => ({}) as Settings, downloadDir: () => dir });
  const ctx = { senderUrl: 'app://swath/', signal: new AbortController().signal };

  beforeAll(async () => {
    browser = await launchPrinterChromium(CHROMIUM);
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-brief-fit-'));
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('measures text no narrower than Chromium sets it in the page\'s font', async () => {
    const tab = await browser.newPage();
    const samples = ['The north field lags', 'WWWW MMMM mmmm', '2026-08-21 · NDVI', 'Müller’s Feld, 12 km²', 'ilililil ....'];
    await tab.setContent(samples.map((s, i) => `<span id="s${i}" style="font-family:'DejaVu Sans';font-size:10pt;white-space:pre">${s}</span><br>`).join(''));
    for (const [i, s] of samples.entries()) {
      const px = await tab.evaluate((id) => document.getElementById(id)!.getBoundingClientRect().width, `s${i}`);
      expect(textWidthMm(s, 10), s).toBeGreaterThanOrEqual((px / 96) * 25.4 - 0.01);
    }
    await tab.close();
  });

  for (const [paper, orientation] of SHEETS) {
    it(`prints ${BRIEF_RASTERS_MAX} rasters, a chart of ${BRIEF_SERIES_MAX} fields and the longest notes on one ${paper} ${orientation} page, each part inside its box`, async () => {
      const sheet = briefSheetMm(paper, orientation);
      // The most notes this page shows whole: the dialog's count (notesRoom) for the longest text it takes.
      const longest = prose(BRIEF_NOTES_MAX);
      const room = notesRoom({ ...worst(1, 1, longest), aoi: true }, sheet);
      expect(room.chars).toBe(longest.length);
      expect(longest.length).toBeGreaterThan(BRIEF_NOTES_MAX - 5);
      // The notes' own end-marker may wrap otherwise than the words it replaces: the longest such text the page shows whole.
      let n = room.shown;
      while (notesRoom({ ...worst(1, 1, prose(n)), aoi: true }, sheet).cut) n -= 10;
      const fits = prose(n);
      expect(fits.length, `${paper} ${orientation}: the notes shown whole`).toBeGreaterThan(300);
      for (const text of [fits, longest]) {
        const px = mapPixels(briefLayout(sheet, { ...worst(1, 1, text), aoi: true }), 40);
        const content = worst(px.width, px.height, text);
        const page = briefPage(content, sheet);
        const req = channels['brief:export'].request.parse({ format: 'pdf', paper, orientation, name: `brief-worst-${paper}-${orientation}`, title: content.title, body: page.body, style: page.style } satisfies RequestOf<'brief:export'>);
        const out = await briefHandlers({ settings: settings(), printer: chromiumPrinter(browser) })['brief:export'](req, ctx);
        expect(execFileSync('pdfinfo', [out.file], { encoding: 'utf8' })).toMatch(/^Pages:\s+1$/m);
        if (SHOTS) execFileSync('pdftoppm', ['-r', '110', '-png', '-singlefile', out.file, path.join(SHOTS, `brief-worst-${paper}-${orientation}-${text === fits ? 'whole' : 'cut'}`)]);
        const found = execFileSync('pdftotext', [out.file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
        for (const needle of [...dates, 'Winter wheat across', page.scaleLabel, 'EPSG:32633', 'Demo imagery service', 'Natural Earth', 'GeoNames', 'OpenStreetMap', 'DE-BB-1040', `DE-BB-${1040 + BRIEF_SERIES_MAX - 1}`]) {
          expect(found, `${paper} ${orientation}: ${needle}`).toContain(needle);
        }
        if (text === fits) {
          expect(found, `${paper} ${orientation}: the notes' end`).toContain('ENDOFNOTES.');
          expect(found).not.toContain('[Cut:');
        } else {
          // Past what fits, the page says so plainly, with what is shown.
          expect(found).toMatch(new RegExp(`\\[Cut: ${page.layout.notes!.shown.length} of ${longest.length} characters shown\\]`));
        }

        // In the page as Chromium lays it out for print: no element past its own box's content, every part inside the sheet, the side columns' blocks inside their column.
        const tab = await browser.newPage({ viewport: { width: Math.round((sheet.widthMm / 25.4) * 96), height: Math.round((sheet.heightMm / 25.4) * 96) } });
        await tab.setContent(`<style>html, body { margin: 0; width: ${sheet.widthMm}mm; height: ${sheet.heightMm}mm; }</style><style>${page.style}</style>${page.body}`);
        await tab.emulateMedia({ media: 'print' });
        if (SHOTS && text === longest) await tab.screenshot({ path: path.join(SHOTS, `brief-worst-dom-${paper}-${orientation}.png`) });
        const faults = await tab.evaluate(() => {
          const out: string[] = [];
          const name = (el: Element) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.replace(/ /g, '.')}` : ''}${el.getAttribute('data-part') ? `[${el.getAttribute('data-part')}]` : ''}`;
          const r = (el: Element) => el.getBoundingClientRect();
          const inside = (a: DOMRect, b: DOMRect) => a.left >= b.left - 0.5 && a.top >= b.top - 0.5 && a.right <= b.right + 0.5 && a.bottom <= b.bottom + 0.5;
          const sheetBox = new DOMRect(0, 0, document.documentElement.clientWidth, document.documentElement.clientHeight);
          for (const el of document.body.querySelectorAll('*')) {
            if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
            if (el instanceof HTMLElement && el.scrollHeight > el.clientHeight + 1 && el.clientHeight > 0) out.push(`${name(el)} holds ${el.scrollHeight}px in ${el.clientHeight}px`);
            if (!el.closest('.map') && !inside(r(el), sheetBox)) out.push(`${name(el)} past the sheet`);
          }
          const parts = [...document.querySelectorAll('header, .map, .side, footer')].map((el) => ({ el, box: r(el) }));
          for (const a of parts) for (const b of parts) {
            if (a.el === b.el || a.el.compareDocumentPosition(b.el) & Node.DOCUMENT_POSITION_PRECEDING) continue;
            const apart = a.box.right <= b.box.left + 0.5 || b.box.right <= a.box.left + 0.5 || a.box.bottom <= b.box.top + 0.5 || b.box.bottom <= a.box.top + 0.5;
            if (!apart) out.push(`${name(a.el)} overlaps ${name(b.el)}`);
          }
          for (const side of document.querySelectorAll('.side')) {
            for (const el of side.querySelectorAll('*')) if (!el.closest('svg') || el.tagName.toLowerCase() === 'svg') if (!inside(r(el), r(side))) out.push(`${name(el)} past its column`);
          }
          for (const el of document.querySelectorAll('header *')) if (!inside(r(el), r(document.querySelector('header')!))) out.push(`${name(el)} past the header`);
          for (const el of document.querySelectorAll('footer *')) if (!inside(r(el), r(document.querySelector('footer')!))) out.push(`${name(el)} past the footer`);
          return out;
        });
        await tab.close();
        expect(faults, `${paper} ${orientation}, ${text.length} characters of notes`).toEqual([]);
      }
    });
  }
});
