import { inflateSync } from 'node:zlib';

/**
 * Reads pixels of Chromium screenshots (PNG) in the test process, so preview tests check real
 * rendered colours. A minimal decoder: 8-bit RGB or RGBA, non-interlaced, which is what
 * Chromium writes.
 */

/** Decoded RGBA pixels. */
export interface Pixels {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** Decodes a Chromium screenshot. */
export function decodePng(png: Buffer): Pixels {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let pos = 8;
  let width = 0, height = 0, colorType = 0;
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('only 8-bit non-interlaced PNGs');
      colorType = data[9]!;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  if (!bpp) throw new Error(`PNG colour type ${colorType} not supported`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = new Uint8Array(width * height * 4);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? cur[i - bpp]! : 0;
      const b = prev[i]!;
      const c = i >= bpp ? prev[i - bpp]! : 0;
      let v = line[i]!;
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      cur[i] = v & 255;
    }
    for (let x = 0; x < width; x++) {
      out.set([cur[x * bpp]!, cur[x * bpp + 1]!, cur[x * bpp + 2]!, bpp === 4 ? cur[x * bpp + 3]! : 255], (y * width + x) * 4);
    }
    prev = cur;
  }
  return { width, height, rgba: out };
}

/** RGB at (x, y). */
export function pixelAt(p: Pixels, x: number, y: number): [number, number, number] {
  const i = (Math.round(y) * p.width + Math.round(x)) * 4;
  return [p.rgba[i]!, p.rgba[i + 1]!, p.rgba[i + 2]!];
}

/** Statistics of a region: how much differs from a background colour, and how varied it is. */
export function regionStats(p: Pixels, background: [number, number, number], region = { x: 0, y: 0, width: p.width, height: p.height }) {
  let painted = 0;
  let sum = 0;
  let sum2 = 0;
  const colours = new Set<number>();
  let n = 0;
  for (let y = region.y; y < region.y + region.height; y++) {
    for (let x = region.x; x < region.x + region.width; x++) {
      const [r, g, b] = pixelAt(p, x, y);
      n++;
      if (Math.abs(r - background[0]) + Math.abs(g - background[1]) + Math.abs(b - background[2]) <= 6) continue;
      painted++;
      const l = 0.299 * r + 0.587 * g + 0.114 * b;
      sum += l;
      sum2 += l * l;
      colours.add((r >> 2) * 4096 + (g >> 2) * 64 + (b >> 2));
    }
  }
  const mean = painted ? sum / painted : 0;
  return { paintedFraction: painted / n, meanLuma: mean, lumaStd: painted ? Math.sqrt(Math.max(0, sum2 / painted - mean * mean)) : 0, colours: colours.size };
}
