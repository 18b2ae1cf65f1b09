import proj4 from 'proj4';
import { describe, expect, it } from 'vitest';
import {
  degreeLabel, frameTicks, lengthLabel, mercatorGroundWidth, mercatorLatitude, northArrowSvg, scaleBar, sourceLines, utcDateLabel, utcDatesLabel,
} from '../../../../renderer/src/platform/cartography';

describe('scale bar', () => {
  it('is the longest 1, 2 or 5 × 10^n metres within the share of the ground width', () => {
    expect(scaleBar(10_000)).toEqual({ metres: 2000, label: '2 km', share: 0.2 });
    expect(scaleBar(1_999)).toEqual({ metres: 200, label: '200 m', share: 200 / 1999 });
    expect(scaleBar(4_000)).toEqual({ metres: 1000, label: '1 km', share: 0.25 });
    expect(scaleBar(100_000, 0.3).label).toBe('20 km');
    expect(scaleBar(3.2).label).toBe('0.5 m');
    expect(scaleBar(12_000_000).label).toBe('2000 km');
    for (const width of [1, 7, 33, 480, 5_555, 91_000, 2.5e6]) {
      const bar = scaleBar(width);
      expect(bar.share).toBeLessThanOrEqual(0.25 + 1e-12);
      // The next nice length up would not fit: the bar is as long as it can be.
      const mantissa = bar.metres / 10 ** Math.floor(Math.log10(bar.metres) + 1e-9);
      const next = mantissa === 1 ? bar.metres * 2 : mantissa === 2 ? bar.metres * 2.5 : bar.metres * 2;
      expect(next / width).toBeGreaterThan(0.25);
    }
  });

  it('refuses a width that is not a positive number, naming it', () => {
    expect(() => scaleBar(0)).toThrow(/groundWidthM/);
    expect(() => scaleBar(Number.NaN)).toThrow(/groundWidthM/);
    expect(() => scaleBar(100, 0)).toThrow(/maxShare/);
  });

  it('labels in metres below a kilometre, in kilometres from one', () => {
    expect(lengthLabel(500)).toBe('500 m');
    expect(lengthLabel(1000)).toBe('1 km');
    expect(lengthLabel(2500)).toBe('2.5 km');
    expect(lengthLabel(0.2)).toBe('0.2 m');
  });

  it('measures a Web Mercator width along its parallel as proj4 projects it', () => {
    // One degree of longitude at 52.5°N: proj4's projected width, and the ground (sphere) length R·cos(lat)·Δλ.
    const [x0, y] = proj4('EPSG:4326', 'EPSG:3857', [13, 52.5]);
    const [x1] = proj4('EPSG:4326', 'EPSG:3857', [14, 52.5]);
    const ground = 6378137 * Math.cos((52.5 * Math.PI) / 180) * (Math.PI / 180);
    expect(mercatorGroundWidth(x1! - x0!, 52.5)).toBeCloseTo(ground, 3);
    expect(mercatorLatitude(y!)).toBeCloseTo(52.5, 9);
    // 67.8 km wide there: a 10 km bar.
    expect(scaleBar(mercatorGroundWidth(x1! - x0!, 52.5)).label).toBe('10 km');
  });
});

describe('sources', () => {
  it('credits the service, Natural Earth and GeoNames with its licence, only for what the map drew', () => {
    expect(sourceLines({ service: 'Demo imagery service', basemap: true, water: true, places: true })).toEqual([
      'Imagery: Demo imagery service',
      'Countries and water: Natural Earth (public domain)',
      'Places: GeoNames (CC BY 4.0, geonames.org)',
    ]);
    expect(sourceLines({ basemap: true })).toEqual(['Countries: Natural Earth (public domain)']);
    expect(sourceLines({ online: '© OpenStreetMap contributors' })).toEqual(['Basemap: © OpenStreetMap contributors']);
    expect(sourceLines({})).toEqual([]);
  });
});

describe('UTC dates', () => {
  it('prints the UTC day whatever the viewer zone, with the time on request', () => {
    expect(utcDateLabel('2026-04-10')).toBe('2026-04-10');
    expect(utcDateLabel('2026-04-10T23:30:00-02:00')).toBe('2026-04-11');
    expect(utcDateLabel(Date.UTC(2026, 3, 10, 10, 32), { time: true })).toBe('2026-04-10 10:32 UTC');
    expect(() => utcDateLabel('yesterday')).toThrow(/Not a date/);
  });

  it('lists a few dates, and a range past that', () => {
    expect(utcDatesLabel(['2026-05-02', '2026-04-10', '2026-04-10'])).toBe('2026-04-10, 2026-05-02');
    expect(utcDatesLabel(['2026-04-10', '2026-05-02', '2026-06-01', '2026-08-20'])).toBe('2026-04-10 to 2026-08-20 (4 dates)');
    expect(utcDatesLabel([])).toBe('');
  });
});

describe('north arrow', () => {
  it('is an SVG turned by the view rotation', () => {
    const svg = northArrowSvg(32);
    expect(svg).toMatch(/^<svg [^>]*width="24" height="32"/);
    expect(svg).toContain('rotate(0 12 16)');
    expect(northArrowSvg(32, Math.PI / 2)).toContain('rotate(90 12 16)');
    expect(() => northArrowSvg(0)).toThrow(/size/);
  });
});

describe('frame ticks', () => {
  it('puts round degree ticks where they fall on the edge', () => {
    const ticks = frameTicks(13.31, 13.52, 'lon', 5);
    expect(ticks.map((t) => t.label)).toEqual(['13.35°E', '13.40°E', '13.45°E', '13.50°E']);
    expect(ticks[0]!.at).toBeCloseTo((13.35 - 13.31) / 0.21, 9);
    expect(frameTicks(-0.2, 0.2, 'lat', 4).map((t) => t.label)).toEqual(['0.2°S', '0.1°S', '0°', '0.1°N', '0.2°N']);
    expect(degreeLabel(-70.25, 'lon', 2)).toBe('70.25°W');
  });

  it('labels a projected grid in metres', () => {
    expect(frameTicks(389_500, 401_200, 'x', 5).map((t) => t.label)).toEqual(['390 000 m', '392 500 m', '395 000 m', '397 500 m', '400 000 m']);
    expect(() => frameTicks(5, 5, 'x')).toThrow(/smaller to a larger/);
  });
});
