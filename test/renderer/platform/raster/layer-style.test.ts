import { describe, expect, it } from 'vitest';
import type { OlExpression } from '../../../../renderer/src/platform/raster/band-expression';
import { defaultDisplay, displayChannels, type BandMeta, type DisplaySettings } from '../../../../renderer/src/platform/raster/display';
import { buildRasterStyle } from '../../../../renderer/src/platform/raster/layer-style';
import { renderSample } from '../../../../renderer/src/platform/raster/render-sample';

/** Evaluates the subset of OpenLayers style expressions the preview emits, as the GPU would. */
function run(e: OlExpression, bands: number[], vars: Record<string, number>): any {
  if (typeof e === 'number' || typeof e === 'string') return e;
  const [op, ...a] = e as [string, ...OlExpression[]];
  const n = (x: OlExpression) => run(x, bands, vars) as number;
  switch (op) {
    case 'band': return bands[n(a[0]!) - 1];
    case 'var': return vars[a[0] as string];
    case '+': return n(a[0]!) + n(a[1]!);
    case '-': return n(a[0]!) - n(a[1]!);
    case '*': return n(a[0]!) * n(a[1]!);
    case '/': return n(a[0]!) / n(a[1]!);
    case '^': return n(a[0]!) ** n(a[1]!);
    case '==': return n(a[0]!) === n(a[1]!);
    case 'clamp': return Math.min(n(a[2]!), Math.max(n(a[1]!), n(a[0]!)));
    case 'case': return run(a[0]!, bands, vars) ? run(a[1]!, bands, vars) : run(a[2]!, bands, vars);
    case 'color': return [n(a[0]!), n(a[1]!), n(a[2]!), n(a[3]!)];
    case 'interpolate': {
      const t = n(a[1]!);
      const stops = a.slice(2);
      for (let i = 2; i < stops.length; i += 2) {
        const p0 = stops[i - 2] as number, p1 = stops[i] as number;
        if (t <= p1) {
          const c0 = stops[i - 1] as number[], c1 = stops[i + 1] as number[];
          const f = (t - p0) / (p1 - p0);
          return c0.map((c, k) => c + (c1[k]! - c) * f);
        }
      }
      return stops.at(-1);
    }
    default:
      if (typeof op === 'number') return e;
      throw new Error(`op ${op}`);
  }
}

const BANDS: BandMeta[] = ['B4', 'B3', 'B2', 'B8'].map((name) => ({ name, scaling: { scale: 1e-4, offset: 0 } }));

function compare(display: DisplaySettings, ranges: [number, number][], pixel: number[], nodata: number) {
  const ch = displayChannels(display, BANDS);
  if (!ch.ok) throw new Error(ch.message);
  const style = buildRasterStyle(ch.channels, BANDS, ranges, display.stretch.gamma, display.ramp, BANDS.length + 1);
  // The GeoTIFF source's alpha band: 255 unless every band is nodata (then the samples read 0).
  const allNodata = pixel.every((v) => v === nodata);
  const gpuBands = [...pixel.map((v) => (allNodata ? 0 : v)), allNodata ? 0 : 255];
  const gpu = run(style.color, gpuBands, style.variables) as number[];
  const cpu = renderSample({ width: 1, height: 1, data: pixel.map((v) => [v]) }, ch.channels, BANDS, nodata, ranges, display.stretch.gamma, display.ramp);
  return { gpu, cpu: Array.from(cpu) };
}

describe('layer styles', () => {
  it('RGB: DN scaling, stretch and gamma on the GPU match the CPU twin', () => {
    const d = defaultDisplay(BANDS);
    expect(d.rgb).toEqual([1, 2, 3]);
    for (const gamma of [1, 0.6, 2.2]) {
      const { gpu, cpu } = compare({ ...d, stretch: { ...d.stretch, gamma } }, [[0.02, 0.2], [0.03, 0.18], [0.01, 0.12]], [1100, 500, 2500, 3000], -32768);
      expect(gpu[3]).toBe(1);
      for (let k = 0; k < 3; k++) expect(Math.abs(gpu[k]! - cpu[k]!), `gamma ${gamma} channel ${k}`).toBeLessThanOrEqual(0.5);
      expect(cpu[3]).toBe(255);
    }
  });

  it('NDVI with a diverging ramp matches the CPU twin, and a zero denominator is not NaN', () => {
    const d: DisplaySettings = { ...defaultDisplay(BANDS), mode: 'expression', expression: 'ndvi', ramp: 'rdylgn' };
    const { gpu, cpu } = compare(d, [[-1, 1]], [800, 900, 700, 4000], -32768);
    for (let k = 0; k < 3; k++) expect(Math.abs(gpu[k]! - cpu[k]!)).toBeLessThanOrEqual(0.5);
    const zero = compare(d, [[-1, 1]], [0, 5, 5, 0], -32768);
    expect(zero.gpu.every((v: number) => Number.isFinite(v))).toBe(true);
  });

  it('nodata pixels are transparent; a pixel with some valid bands is drawn', () => {
    const d = defaultDisplay(BANDS);
    expect(compare(d, [[0, 1], [0, 1], [0, 1]], [-32768, -32768, -32768, -32768], -32768).gpu[3]).toBe(0);
    expect(compare(d, [[0, 1], [0, 1], [0, 1]], [-32768, -32768, -32768, -32768], -32768).cpu[3]).toBe(0);
    const single: DisplaySettings = { ...d, mode: 'single', band: 4, ramp: 'viridis' };
    expect(compare(single, [[0, 1]], [-32768, -32768, -32768, -32768], -32768).gpu).toEqual([0, 0, 0, 0]);
    expect(compare(d, [[0, 1], [0, 1], [0, 1]], [100, -32768, -32768, -32768], -32768).gpu[3]).toBe(1);
  });

  it('defaults: B4/B3/B2 by name whatever the order, else the first three bands, single index bands get a diverging ramp', () => {
    const named = (names: string[]) => names.map((name) => ({ name, scaling: { scale: 1, offset: 0 } }));
    expect(defaultDisplay(named(['B2', 'B3', 'B4', 'B8'])).rgb).toEqual([3, 2, 1]);
    expect(defaultDisplay(named(['Band 1', 'Band 2', 'Band 3', 'Band 4']))).toMatchObject({ mode: 'rgb', rgb: [1, 2, 3] });
    expect(defaultDisplay(named(['[B8_B4]']))).toMatchObject({ mode: 'single', band: 1, ramp: 'rdylgn' });
    expect(defaultDisplay(named(['Band 1']))).toMatchObject({ mode: 'single', band: 1, ramp: 'grey' });
    expect(displayChannels({ ...defaultDisplay(named(['B4'])), mode: 'rgb', rgb: [1, 2, 3] }, named(['B4']))).toMatchObject({ ok: false });
    expect(displayChannels({ ...defaultDisplay(named(['B4'])), mode: 'expression', expression: 'B9/2' }, named(['B4']))).toMatchObject({ ok: false, message: expect.stringMatching(/No band "B9"/) });
  });
});
