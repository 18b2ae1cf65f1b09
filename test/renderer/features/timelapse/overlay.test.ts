import { describe, expect, it } from 'vitest';
import { overlaps, overlayLayout, type Box, type Measure } from '../../../../renderer/src/features/timelapse/model/overlay';
import { scaleBar, sourceLines } from '../../../../renderer/src/platform/cartography';

// A film frame's burned-in text: the date, the scale bar and the sources never overlap and stay in
// the frame, at every size the dialog offers (400 to 2,500 px on the longer side) and aspect.

/** Text about as wide as a sans-serif draws it: 0.6 em a character, 0.65 bold. */
const measure: Measure = (text, px, bold) => text.length * px * (bold ? 0.65 : 0.6);
const inside = (b: Box, w: number, h: number) => b.x >= 0 && b.y >= 0 && b.x + b.width <= w && b.y + b.height <= h;

describe('film frame overlay layout', () => {
  const services = ['Demo service (offline)', 'Stratus Imagery Production API (eu-central, analyst account 4711)'];
  const sizes: [number, number][] = [[400, 400], [400, 226], [226, 400], [400, 2500], [2500, 400], [640, 360], [1000, 1000], [1000, 562], [2500, 2500], [2500, 1406]];

  it('keeps the date, the scale bar and the sources apart and inside the frame', () => {
    for (const service of services) {
      const sources = sourceLines({ service, basemap: true });
      for (const [w, h] of sizes) {
        for (const ground of [500, 3_300, 48_000]) {
          const bar = scaleBar(ground);
          const o = overlayLayout(w, h, { date: '2026-04-10 UTC', scaleLabel: bar.label, scaleShare: bar.share, sources }, measure);
          const boxes = { date: o.date.box, scale: o.scale.box, sources: o.sources.box };
          for (const [name, b] of Object.entries(boxes)) expect(inside(b, w, h), `${w}×${h} ${service}: ${name} ${JSON.stringify(b)}`).toBe(true);
          expect(overlaps(boxes.scale, boxes.sources), `${w}×${h} ${service}: scale ${JSON.stringify(boxes.scale)} sources ${JSON.stringify(boxes.sources)}`).toBe(false);
          expect(overlaps(boxes.date, boxes.sources), `${w}×${h}: date and sources`).toBe(false);
          expect(overlaps(boxes.date, boxes.scale), `${w}×${h}: date and scale`).toBe(false);
          // Every line inside its box.
          for (const l of o.sources.lines) {
            expect(l.x).toBeGreaterThanOrEqual(boxes.sources.x);
            expect(l.x + measure(l.text, l.px, false)).toBeLessThanOrEqual(boxes.sources.x + boxes.sources.width + 1e-9);
          }
        }
      }
    }
  });

  it('puts the sources on one line beside the scale bar where they fit, and elsewhere when they would cross it', () => {
    const sources = sourceLines({ service: 'Demo service (offline)', basemap: true });
    const bar = scaleBar(3_300);
    const wide = overlayLayout(2500, 1406, { date: '2026-04-10 UTC', scaleLabel: bar.label, scaleShare: bar.share, sources }, measure);
    expect(wide.sources.lines).toHaveLength(1);
    // At 400 px the line beside the bar would run into it: the sources are split.
    const narrow = overlayLayout(400, 226, { date: '2026-04-10 UTC', scaleLabel: bar.label, scaleShare: bar.share, sources }, measure);
    const oneLine = measure(sources.join(' · '), narrow.scale.label.px, false) + narrow.pad * 2;
    expect(400 - narrow.pad - oneLine).toBeLessThan(narrow.scale.box.x + narrow.scale.box.width);
    expect(narrow.sources.lines.map((l) => l.text)).toEqual(sources);
  });
});
