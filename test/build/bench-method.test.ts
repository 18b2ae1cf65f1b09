import { describe, expect, it } from 'vitest';
import { formatFigure, interleaved, machineFigure, median, MIN_PAIRS, parseBenchArgs, ratioFigure } from '../bench/method.js';

// The benchmark method itself (npm run bench): pairs interleave, ratios are per pair, and the
// printed format and arguments are what the developer's guide promises.
describe('bench method', () => {
  it('runs a warm-up of each side, then ours and the reference alternately, and takes ratios per pair', async () => {
    const calls: string[] = [];
    let t = 0;
    // A machine that slows down steadily: per-pair ratios stay 2, whole-run medians would not matter.
    const p = await interleaved(7, async (i) => {
      calls.push(`o${i}`);
      return 2 * ++t;
    }, async (i) => {
      calls.push(`r${i}`);
      return t;
    });
    expect(calls).toEqual(['o-1', 'r-1', ...Array.from({ length: 7 }, (_, i) => [`o${i}`, `r${i}`]).flat()]);
    expect(p.ratios).toEqual(Array(7).fill(2));
    expect(p.ours).toHaveLength(7);
    await expect(interleaved(MIN_PAIRS - 1, async () => 1, async () => 1)).rejects.toThrow(/at least 7 pairs/);
  });

  it('prints the median ratio with its min–max and both sides', () => {
    const f = ratioFigure('x-ratio', { ours: [10, 30, 20], reference: [10, 10, 10], ratios: [1, 3, 2] }, { ours: 'A', reference: 'B', unit: 'ms' }, 'note');
    expect(f.value).toBe(2);
    expect(formatFigure(f)).toBe('x-ratio: 2.00 x  (median of 3 interleaved pairs, min–max 1.00–3.00; A 20 ms (10–30), B 10 ms (10–10); note)');
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(formatFigure({ name: 'big', value: 1234.5, unit: 'ms' })).toBe('big: 1235 ms');
  });

  it('names the machine: cores, CPU model and load average', () => {
    const m = machineFigure();
    expect(m.value).toBeGreaterThan(0);
    expect(m.note).toMatch(/load average \d+\.\d\d \d+\.\d\d \d+\.\d\d at start/);
  });

  it('takes benchmark names and --repeat N, and refuses anything else with the reason', () => {
    const known = ['preview', 'downloads'];
    expect(parseBenchArgs([], known)).toEqual({ only: [], repeat: 1 });
    expect(parseBenchArgs(['--repeat', '2', 'preview'], known)).toEqual({ only: ['preview'], repeat: 2 });
    expect(parseBenchArgs(['downloads', '--repeat=3'], known)).toEqual({ only: ['downloads'], repeat: 3 });
    expect(() => parseBenchArgs(['--repeat'], known)).toThrow(/--repeat takes a whole number/);
    expect(() => parseBenchArgs(['--repeat', '0'], known)).toThrow(/--repeat takes a whole number/);
    expect(() => parseBenchArgs(['--fast'], known)).toThrow(/unknown option --fast/);
    expect(() => parseBenchArgs(['gpu'], known)).toThrow(/unknown benchmark\(s\): gpu; known: preview, downloads/);
  });
});
