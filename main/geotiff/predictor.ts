/**
 * The TIFF predictors of the compressed GeoTIFFs: horizontal differencing (Predictor 2) for
 * integers and the floating-point predictor (3) for FLOAT32, applied to a block before DEFLATE.
 * Pure typed-array loops; they run on the DEFLATE threads (deflate-worker.ts).
 */

/**
 * Writes the TIFF Predictor 2 (horizontal differencing, integers) or 3 (floating point, TIFF
 * Technical Note 3 as libtiff and GDAL write it) encoding of one block from `src` into `dst`
 * (both `rows` rows of `rowSamples` samples of `bytes` bytes, pixel-interleaved with `spp` samples
 * per pixel, little-endian; both aligned to `bytes`). `src` is left unchanged.
 */
export function encodePredictor(src: Uint8Array, dst: Uint8Array, predictor: 2 | 3, rowSamples: number, rows: number, bytes: 1 | 2 | 4, spp: number): void {
  const n = rowSamples * rows;
  if (predictor === 2) {
    const s = bytes === 1 ? src : bytes === 2 ? new Uint16Array(src.buffer, src.byteOffset, n) : new Uint32Array(src.buffer, src.byteOffset, n);
    const d = bytes === 1 ? dst : bytes === 2 ? new Uint16Array(dst.buffer, dst.byteOffset, n) : new Uint32Array(dst.buffer, dst.byteOffset, n);
    const head = Math.min(spp, rowSamples);
    for (let o = 0; o < n; o += rowSamples) {
      for (let i = o; i < o + head; i++) d[i] = s[i]!;
      for (let i = o + spp, end = o + rowSamples; i < end; i++) d[i] = s[i]! - s[i - spp]!; // wraps in the unsigned view
    }
    return;
  }
  const rowBytes = rowSamples * bytes;
  for (let r = 0; r < rows; r++) {
    const o = r * rowBytes;
    // The bytes of each sample, most significant first, in `bytes` planes of the row...
    if (bytes === 4) {
      const s = new Uint32Array(src.buffer, src.byteOffset + o, rowSamples);
      const p1 = o + rowSamples;
      const p2 = p1 + rowSamples;
      const p3 = p2 + rowSamples;
      for (let i = 0; i < rowSamples; i++) {
        const v = s[i]!;
        dst[o + i] = v >>> 24;
        dst[p1 + i] = v >>> 16;
        dst[p2 + i] = v >>> 8;
        dst[p3 + i] = v;
      }
    } else {
      for (let i = 0; i < rowSamples; i++) for (let b = 0; b < bytes; b++) dst[o + (bytes - b - 1) * rowSamples + i] = src[o + bytes * i + b]!;
    }
    // ...then differences of the bytes one pixel apart, from the end so each reads its unchanged neighbour.
    for (let j = o + rowBytes - 1; j >= o + spp; j--) dst[j] = dst[j]! - dst[j - spp]!;
  }
}
