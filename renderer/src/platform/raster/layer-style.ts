import { bandsUsed, toOlExpression, type OlExpression } from './band-expression';
import { rampStops, type RampName } from './color-ramps';
import type { BandMeta, Channel } from './display';

/**
 * OpenLayers WebGL tile styles for a display. Everything is computed on the GPU from raw DNs
 * (the source is read with normalize: false): DN scaling, band maths, the stretch and gamma; the
 * ranges and gamma are style variables, so dragging a stretch only updates uniforms.
 */

/** A WebGL tile layer style: a colour expression plus its variables. */
export interface RasterStyle {
  color: OlExpression;
  variables: Record<string, number>;
}

/** The physical value of band `index` (1-based): DN times scale plus offset. */
export function bandValueExpression(index: number, bands: readonly BandMeta[], slotOf: (index: number) => number = (i) => i): OlExpression {
  const s = bands[index - 1]?.scaling ?? { scale: 1, offset: 0 };
  const dn: OlExpression = ['band', slotOf(index)];
  const scaled: OlExpression = s.scale === 1 ? dn : ['*', dn, s.scale];
  return s.offset === 0 ? scaled : ['+', scaled, s.offset];
}

/** Style variables of channel ranges and gamma: lo_<key>, hi_<key>, gamma. */
export function styleVariables(channels: readonly Channel[], ranges: readonly [number, number][], gamma: number): Record<string, number> {
  const vars: Record<string, number> = { gamma: gamma > 0 ? gamma : 1 };
  channels.forEach((c, i) => {
    const [lo, hi] = ranges[i] ?? [0, 1];
    vars[`lo_${c.key}`] = lo;
    vars[`hi_${c.key}`] = hi > lo ? hi : lo + 1e-9;
  });
  return vars;
}

function stretched(c: Channel, bands: readonly BandMeta[], slotOf?: (index: number) => number): OlExpression {
  const v = toOlExpression(c.ast, (i) => bandValueExpression(i, bands, slotOf));
  const lo: OlExpression = ['var', `lo_${c.key}`];
  const hi: OlExpression = ['var', `hi_${c.key}`];
  const t: OlExpression = ['clamp', ['/', ['-', v, lo], ['-', hi, lo]], 0, 1];
  return ['^', t, ['/', 1, ['var', 'gamma']]];
}

/** The file bands (1-based, ascending) a set of channels reads. */
export function usedBands(channels: readonly Channel[]): number[] {
  return [...new Set(channels.flatMap((c) => bandsUsed(c.ast)))].sort((a, b) => a - b);
}

/**
 * The style of a display. `alphaBand` is the source's nodata mask band (1-based, 0 where every
 * band is nodata), or null when the file declares no nodata. `slots`, when given, are the file
 * bands the source delivers, in order (a source that carries only the displayed bands).
 */
export function buildRasterStyle(
  channels: readonly Channel[], bands: readonly BandMeta[], ranges: readonly [number, number][],
  gamma: number, ramp: RampName, alphaBand: number | null, slots?: readonly number[],
): RasterStyle {
  const slotOf = slots ? (i: number) => slots.indexOf(i) + 1 : undefined;
  const variables = styleVariables(channels, ranges, gamma);
  const alpha: OlExpression = alphaBand ? ['/', ['band', alphaBand], 255] : 1;
  if (channels.length === 3) {
    const [r, g, b] = channels.map((c) => ['*', 255, stretched(c, bands, slotOf)] as OlExpression);
    return { color: ['color', r!, g!, b!, alpha], variables };
  }
  const t = stretched(channels[0]!, bands, slotOf);
  const stops: OlExpression[] = [];
  for (const [p, rgb] of rampStops(ramp)) stops.push(p, [...rgb, 1]);
  const colour: OlExpression = ['interpolate', ['linear'], t, ...stops];
  const color: OlExpression = alphaBand ? ['case', ['==', ['band', alphaBand], 0], [0, 0, 0, 0], colour] : colour;
  return { color, variables };
}
