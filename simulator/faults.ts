/** Fault injection settings: each rate is a probability per request, 0..1. */
export interface FaultConfig {
  error5xx: number;
  reset: number;
  slow: number;
  slowMs: number;
  truncate: number;
}

/** No faults: the default. */
export const NO_FAULTS: FaultConfig = { error5xx: 0, reset: 0, slow: 0, slowMs: 2000, truncate: 0 };

/**
 * Parses a fault spec such as "5xx=0.2,reset=0.05,slow=0.1,slowms=1500,truncate=0.1".
 * Throws with the offending item named, so a typo on the command line is not silently ignored.
 */
export function parseFaults(spec: string | undefined | null): FaultConfig {
  const cfg = { ...NO_FAULTS };
  if (!spec) return cfg;
  const names: Record<string, keyof FaultConfig> = { '5xx': 'error5xx', reset: 'reset', slow: 'slow', slowms: 'slowMs', truncate: 'truncate' };
  for (const item of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [k, v] = item.split('=');
    const key = names[(k ?? '').toLowerCase()];
    const num = Number(v);
    if (!key || v === undefined || !Number.isFinite(num)) {
      throw new Error(`Bad fault "${item}": expected one of ${Object.keys(names).join(', ')} with a number, e.g. 5xx=0.2`);
    }
    if (key !== 'slowMs' && (num < 0 || num > 1)) throw new Error(`Bad fault "${item}": a rate must be between 0 and 1`);
    cfg[key] = num;
  }
  return cfg;
}

/** A small seeded PRNG (mulberry32), so fault sequences repeat for a given seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
