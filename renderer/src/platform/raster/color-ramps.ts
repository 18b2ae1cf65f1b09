/** Colour ramps for single-band and index display: sequential (viridis, grey) and diverging (red-yellow-green, red-blue). */

/** Name of a ramp. */
export type RampName = 'viridis' | 'grey' | 'rdylgn' | 'rdbu';

/** Ramps offered in the UI, with labels; the diverging ones suit indices centred on 0. */
export const RAMPS: { name: RampName; label: string; diverging: boolean }[] = [
  { name: 'viridis', label: 'Viridis', diverging: false },
  { name: 'grey', label: 'Grey', diverging: false },
  { name: 'rdylgn', label: 'Red-Yellow-Green (diverging)', diverging: true },
  { name: 'rdbu', label: 'Red-Blue (diverging)', diverging: true },
];

const STOPS: Record<RampName, string[]> = {
  viridis: ['#440154', '#482878', '#3e4989', '#31688e', '#26828e', '#1f9e89', '#35b779', '#6ece58', '#b5de2b', '#fde725'],
  grey: ['#000000', '#ffffff'],
  rdylgn: ['#a50026', '#d73027', '#f46d43', '#fdae61', '#fee08b', '#ffffbf', '#d9ef8b', '#a6d96a', '#66bd63', '#1a9850', '#006837'],
  rdbu: ['#67001f', '#b2182b', '#d6604d', '#f4a582', '#fddbc7', '#f7f7f7', '#d1e5f0', '#92c5de', '#4393c3', '#2166ac', '#053061'],
};

/** RGB 0..255 of a hex colour. */
export function hexToRgb(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** The ramp's stops as [position 0..1, [r, g, b]]. */
export function rampStops(name: RampName): [number, [number, number, number]][] {
  const s = STOPS[name];
  return s.map((hex, i) => [i / (s.length - 1), hexToRgb(hex)]);
}

/** The colour of a ramp at t in 0..1 (linear between stops), as the GPU computes it. */
export function rampColor(name: RampName, t: number): [number, number, number] {
  const stops = rampStops(name);
  const x = Math.min(1, Math.max(0, t));
  for (let i = 1; i < stops.length; i++) {
    const [p1, c1] = stops[i]!;
    const [p0, c0] = stops[i - 1]!;
    if (x <= p1) {
      const f = (x - p0) / (p1 - p0);
      return [0, 1, 2].map((k) => c0[k]! + (c1[k]! - c0[k]!) * f) as [number, number, number];
    }
  }
  return stops.at(-1)![1];
}

/** A CSS linear-gradient of the ramp, for legends. */
export function rampCss(name: RampName): string {
  return `linear-gradient(to right, ${STOPS[name].join(', ')})`;
}
