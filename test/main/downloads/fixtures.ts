import { writeArrayBuffer } from 'geotiff';

/** A small valid GeoTIFF (strips, UINT16) written by geotiff.js, for tests that need bytes without a simulator. */
export function tinyGeoTiff(opts: { width?: number; height?: number; epsg?: number; origin?: [number, number]; pixel?: number; seed?: number } = {}): Buffer {
  const width = opts.width ?? 32;
  const height = opts.height ?? 24;
  const values = new Uint16Array(width * height);
  for (let i = 0; i < values.length; i++) values[i] = (i * 7 + (opts.seed ?? 0)) % 65535;
  const epsg = opts.epsg ?? 4326;
  const [x0, y0] = opts.origin ?? (epsg === 4326 ? [13.4, 52.52] : [391360, 5820080]);
  const pixel = opts.pixel ?? (epsg === 4326 ? 0.001 : 80);
  const geo = epsg === 4326
    ? { GeographicTypeGeoKey: 4326, GTModelTypeGeoKey: 2 }
    : { ProjectedCSTypeGeoKey: epsg, GTModelTypeGeoKey: 1 };
  const ab = writeArrayBuffer(values, {
    width,
    height,
    ModelPixelScale: [pixel, pixel, 0],
    ModelTiepoint: [0, 0, 0, x0, y0, 0],
    ...geo,
  });
  return Buffer.from(ab);
}

/** A web stream of buffers, optionally failing after the chunks (like a reset socket). */
export function streamOf(chunks: Uint8Array[], opts: { failWith?: Error; delayMs?: number } = {}): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      if (i < chunks.length) {
        c.enqueue(chunks[i++]!);
        return;
      }
      if (opts.failWith) c.error(opts.failWith);
      else c.close();
    },
  });
}

/** Splits a buffer into n roughly equal chunks. */
export function chunked(buf: Buffer, n: number): Uint8Array[] {
  const size = Math.ceil(buf.length / n);
  const out: Uint8Array[] = [];
  for (let o = 0; o < buf.length; o += size) out.push(new Uint8Array(buf.subarray(o, o + size)));
  return out;
}
