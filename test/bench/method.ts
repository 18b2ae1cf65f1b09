import os from 'node:os';

/**
 * How `npm run bench` measures, so figures survive a noisy or slower machine:
 * - a ratio against a reference (GDAL, curl, a bare OpenLayers page) comes from interleaved pairs,
 *   ours then the reference, after one warm-up of each, at least {@link MIN_PAIRS} pairs; the figure
 *   is the median of the per-pair ratios, printed with their min–max, so a load spike slows both
 *   sides of one pair instead of one side of the whole comparison;
 * - every run starts with a line naming the CPU model, the core count and the load average.
 */

/** One printed figure: `<name>: <value> <unit>  (note)`. */
export interface Figure { name: string; value: number; unit: string; note?: string }

/** The fewest interleaved pairs a ratio is taken from. */
export const MIN_PAIRS = 7;

export function median(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** `a–b` of a list, formatted with `digits` decimals. */
export function spread(xs: number[], digits = 2): string {
  return `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
}

/** The machine a run was measured on, as a figure (value: logical cores). */
export function machineFigure(): Figure {
  const cpus = os.cpus();
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  return {
    name: 'bench-machine-cores',
    value: cpus.length,
    unit: 'cores',
    note: `${cpus[0]?.model.trim() ?? 'unknown CPU'}; load average ${load} at start; ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.versions.node}; ${os.platform()} ${os.release()}`,
  };
}

/** The samples of an interleaved comparison. */
export interface Pairs {
  ours: number[];
  reference: number[];
  /** ours[i] / reference[i]. */
  ratios: number[];
}

/**
 * Runs `ours` and `reference` alternately: one warm-up of each (not kept), then `pairs` pairs, ours
 * first in each. Each function returns the measured quantity of one run (ms, MB/s, ...).
 */
export async function interleaved(
  pairs: number,
  ours: (i: number) => Promise<number>,
  reference: (i: number) => Promise<number>,
): Promise<Pairs> {
  if (pairs < MIN_PAIRS) throw new Error(`a ratio needs at least ${MIN_PAIRS} pairs, not ${pairs}`);
  await ours(-1);
  await reference(-1);
  const out: Pairs = { ours: [], reference: [], ratios: [] };
  for (let i = 0; i < pairs; i++) {
    const o = await ours(i);
    const r = await reference(i);
    out.ours.push(o);
    out.reference.push(r);
    out.ratios.push(o / r);
  }
  return out;
}

/**
 * The figure of a comparison: the median per-pair ratio, with its min–max and both sides' medians.
 * `what` names the two sides and the unit of the samples, e.g. `{ ours: 'Swath', reference: 'GDAL', unit: 'ms' }`.
 */
export function ratioFigure(
  name: string,
  p: Pairs,
  what: { ours: string; reference: string; unit: string; digits?: number },
  note: string,
): Figure {
  const d = what.digits ?? 0;
  return {
    name,
    value: median(p.ratios),
    unit: 'x',
    note: `median of ${p.ratios.length} interleaved pairs, min–max ${spread(p.ratios)}; ${what.ours} ${median(p.ours).toFixed(d)} ${what.unit} (${spread(p.ours, d)}), ${what.reference} ${median(p.reference).toFixed(d)} ${what.unit} (${spread(p.reference, d)}); ${note}`,
  };
}

/** Prints a figure as `<name>: <value> <unit>  (note)`. */
export function formatFigure(f: Figure): string {
  const digits = Math.abs(f.value) >= 100 ? 0 : 2;
  return `${f.name}: ${f.value.toFixed(digits)} ${f.unit}${f.note ? `  (${f.note})` : ''}`;
}

/** `npm run bench` arguments: benchmark names (of `known`) and `--repeat N` (or `--repeat=N`). */
export function parseBenchArgs(argv: string[], known: string[]): { only: string[]; repeat: number } {
  const only: string[] = [];
  let repeat = 1;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const m = /^--repeat(?:=(.*))?$/.exec(a);
    if (m) {
      const v = m[1] ?? argv[++i];
      repeat = Number(v);
      if (!v || !Number.isInteger(repeat) || repeat < 1 || repeat > 100) throw new Error(`--repeat takes a whole number from 1 to 100, not ${v ?? 'nothing'}`);
    } else if (a.startsWith('-')) {
      throw new Error(`unknown option ${a}; known: --repeat N`);
    } else {
      only.push(a);
    }
  }
  const unknown = only.filter((n) => !known.includes(n));
  if (unknown.length) throw new Error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return { only, repeat };
}
