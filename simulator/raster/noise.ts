/**
 * Deterministic hash and 3D value noise. The landscape samples noise on the sphere (x, y, z in metres)
 * so the same place gets the same value whatever the output CRS or pixel grid.
 */

/** Integer hash of a 3D lattice point, as an unsigned 32-bit number. */
export function hash3u(ix: number, iy: number, iz: number, seed: number): number {
  let h = Math.imul(ix | 0, 0x27d4eb2d) ^ Math.imul(iy | 0, 0x165667b1) ^ Math.imul(iz | 0, 0x2545f491) ^ seed;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of a 3D lattice point mapped to [0, 1). */
export function hash3(ix: number, iy: number, iz: number, seed: number): number {
  return hash3u(ix, iy, iz, seed) / 4294967296;
}

const P1 = 0x27d4eb2d;
const P2 = 0x165667b1;
const P3 = 0x2545f491;
const INV32 = 1 / 4294967296;

/** Finaliser (murmur3 fmix32) of a lattice sum, mapped to [0, 1). */
function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) * INV32;
}

/** Smooth value noise in [-1, 1] with unit lattice spacing. */
export function vnoise3(x: number, y: number, z: number, seed: number): number {
  const ix = Math.floor(x);
  const iy = Math.floor(y);
  const iz = Math.floor(z);
  let fx = x - ix;
  let fy = y - iy;
  let fz = z - iz;
  fx = fx * fx * (3 - 2 * fx);
  fy = fy * fy * (3 - 2 * fy);
  fz = fz * fz * (3 - 2 * fz);
  // Linear lattice sum + strong finaliser: neighbours cost one addition each instead of a full hash.
  const b = (Math.imul(ix, P1) + Math.imul(iy, P2) + Math.imul(iz, P3) + seed) | 0;
  const c000 = fmix(b);
  const c100 = fmix((b + P1) | 0);
  const c010 = fmix((b + P2) | 0);
  const c110 = fmix((b + P1 + P2) | 0);
  const c001 = fmix((b + P3) | 0);
  const c101 = fmix((b + P1 + P3) | 0);
  const c011 = fmix((b + P2 + P3) | 0);
  const c111 = fmix((b + P1 + P2 + P3) | 0);
  const x00 = c000 + (c100 - c000) * fx;
  const x10 = c010 + (c110 - c010) * fx;
  const x01 = c001 + (c101 - c001) * fx;
  const x11 = c011 + (c111 - c011) * fx;
  const y0 = x00 + (x10 - x00) * fy;
  const y1 = x01 + (x11 - x01) * fy;
  return 2 * (y0 + (y1 - y0) * fz) - 1;
}

/**
 * Fractal sum of value noise, normalised to roughly [-1, 1]. Octaves finer than minWavelength are
 * skipped because at coarse pixel sizes they would only alias into speckle.
 */
export function fbm3(
  x: number,
  y: number,
  z: number,
  wavelength: number,
  octaves: number,
  seed: number,
  minWavelength = 0,
): number {
  let sum = 0;
  let norm = 0;
  let amp = 1;
  let wl = wavelength;
  for (let o = 0; o < octaves; o++) {
    if (o > 0 && wl < minWavelength) break;
    sum += amp * vnoise3(x / wl, y / wl, z / wl, (seed + o * 0x9e3779b9) | 0);
    norm += amp;
    amp *= 0.5;
    wl *= 0.5;
  }
  return sum / norm;
}
