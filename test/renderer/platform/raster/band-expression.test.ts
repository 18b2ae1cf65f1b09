import { describe, expect, it } from 'vitest';
import { bandsUsed, evaluate, formatExpression, isNormalizedDifference, parseBandExpression, resolveBand, toOlExpression } from '../../../../renderer/src/platform/raster/band-expression';

const S2 = ['B4', 'B3', 'B2', 'B8', '[B8_B4]'];

function value(text: string, bands: string[], values: number[]): number {
  const r = parseBandExpression(text, bands);
  if (!r.ok) throw new Error(r.message);
  return evaluate(r.ast, (i) => values[i - 1]!);
}

describe('band expressions', () => {
  it('parses arithmetic with precedence, unary minus, powers and parentheses', () => {
    const v = [0.1, 0.2, 0.3, 0.5, 0];
    expect(value('(B8-B4)/(B8+B4)', S2, v)).toBeCloseTo(0.4 / 0.6, 12);
    expect(value('B8 - B4 * 2', S2, v)).toBeCloseTo(0.3, 12);
    expect(value('-B4 + 1', S2, v)).toBeCloseTo(0.9, 12);
    expect(value('2 ^ 3 ^ 2', S2, v)).toBe(512);
    expect(value('2.5 * (B8 - B4) / (B8 + 6*B4 - 7.5*B2 + 1)', S2, v)).toBeCloseTo((2.5 * 0.4) / (0.5 + 0.6 - 2.25 + 1), 12);
    expect(value('1e-1 + .5', S2, v)).toBeCloseTo(0.6, 12);
  });

  it('knows ndvi, other index aliases, nd(A, B) and [A_B]; a delivered index band is used as is', () => {
    const v = [0.1, 0.2, 0.3, 0.5, 0.123];
    // The file delivers [B8_B4]: ndvi reads it instead of recomputing.
    expect(value('ndvi', S2, v)).toBe(0.123);
    expect(value('NDVI', ['B4', 'B8'], [0.1, 0.5])).toBeCloseTo(0.4 / 0.6, 12);
    expect(value('[B8_B4]', ['B4', 'B8'], [0.1, 0.5])).toBeCloseTo(0.4 / 0.6, 12);
    expect(value('ndwi', S2, v)).toBeCloseTo((0.2 - 0.5) / 0.7, 12);
    expect(value('nd(B3, B2)', S2, v)).toBeCloseTo(-0.2, 12);
    const nd = parseBandExpression('(B8-B4)/(B8+B4)', S2);
    expect(nd.ok && isNormalizedDifference(nd.ast)).toBe(true);
    const plain = parseBandExpression('B8/B4', S2);
    expect(plain.ok && isNormalizedDifference(plain.ast)).toBe(false);
  });

  it('resolves bands by name case-insensitively, by position only for generic names', () => {
    expect(resolveBand('b8', S2)).toBe(4);
    expect(resolveBand('B1', S2)).toBe(-1);
    expect(resolveBand('B2', ['Band 1', 'Band 2'])).toBe(2);
    expect(resolveBand('band1', ['Band 1', 'Band 2'])).toBe(1);
    expect(value('b1 - b2', ['Band 1', 'Band 2'], [5, 3])).toBe(2);
  });

  it('reports what is wrong and where', () => {
    const cases: [string, RegExp, number][] = [
      ['B9 + B4', /No band "B9"/, 0],
      ['(B8 - B4', /Missing "\)"/, 8],
      ['B8 $ B4', /Unexpected "\$"/, 3],
      ['B8 +', /ends too early/, 4],
      ['foo(B8)', /Unknown function "foo"/, 0],
      ['nd(B8)', /two arguments/, 5],
      ['', /Type an expression/, 0],
      ['B8 B4', /Unexpected "B4"/, 3],
    ];
    for (const [text, message, at] of cases) {
      const r = parseBandExpression(text, S2);
      expect(r.ok, text).toBe(false);
      if (!r.ok) {
        expect(r.message, text).toMatch(message);
        expect(r.at, text).toBe(at);
      }
    }
  });

  it('division by zero is NaN in JS and a guarded 0 in the GPU expression', () => {
    expect(value('B4 / (B3 - B3)', S2, [1, 2, 3, 4, 5])).toBeNaN();
    const r = parseBandExpression('B4/B3', S2);
    if (!r.ok) throw new Error('parse');
    expect(toOlExpression(r.ast, (i) => ['band', i])).toEqual(['case', ['==', ['band', 2], 0], 0, ['/', ['band', 1], ['band', 2]]]);
  });

  it('lists the bands an expression reads and formats it back', () => {
    const r = parseBandExpression('nd(B8, B4) * 2 - B2', ['B2', 'B4', 'B8']);
    if (!r.ok) throw new Error('parse');
    expect(bandsUsed(r.ast)).toEqual([1, 2, 3]);
    expect(formatExpression(r.ast)).toBe('(B8-B4)/(B8+B4)*2-B2');
    const s = parseBandExpression('B8-(B4-B2)', ['B2', 'B4', 'B8']);
    if (!s.ok) throw new Error('parse');
    expect(formatExpression(s.ast)).toBe('B8-(B4-B2)');
  });
});
