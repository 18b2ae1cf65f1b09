/**
 * A window's values read block by block: each tile (or strip) of the window decoded once by
 * geotiff.js's own decoder for the file (main/geotiff's bounded DEFLATE), then its samples taken
 * through a typed-array view rather than geotiff.js's per-sample reader. For the pixel-interleaved
 * 8/16-bit files of the library in the machine's byte order; any other file is read by
 * main/analysis readValues, whose rules this follows (nodata and NaN invalid, value = DN * scale +
 * offset, a normalized difference undefined where A + B = 0).
 */
import { getDecoder } from 'geotiff';
import { throwIfAborted } from '../../../common/abort.js';
import { readValues, type Window } from '../../analysis/compute.js';
import type { ReadPlan } from '../../analysis/expression.js';
import { nodataOf, type OpenGeoTiff } from '../../geotiff/index.js';

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

type Decoder = Parameters<OpenGeoTiff['image']['getTileOrStrip']>[3];
const decoders = new WeakMap<OpenGeoTiff, Promise<Decoder>>();

function decoderOf(open: OpenGeoTiff): Promise<Decoder> {
  let d = decoders.get(open);
  if (!d) {
    const h = open.header;
    const dir = open.image.fileDirectory;
    d = (async () => getDecoder(h.compression, {
      tileWidth: open.image.getTileWidth(), tileHeight: open.image.getTileHeight(), planarConfiguration: 1,
      bitsPerSample: Array.from({ length: h.bands }, () => h.bitsPerSample),
      predictor: dir.hasTag('Predictor') ? Number(await dir.loadValue('Predictor')) : 1,
    } as never) as Promise<Decoder>)();
    decoders.set(open, d);
  }
  return d;
}

/**
 * The values of `plan` over `win` (row-major, NaN where invalid), as main/analysis readValues gives
 * them; written into `into` (at least the window's size) when given, so a caller reuses its buffer.
 */
export async function readWindow(open: OpenGeoTiff, plan: ReadPlan, win: Window, signal: AbortSignal, stripRows: number, into?: Float64Array): Promise<Float64Array> {
  const h = open.header;
  const typed = h.dataType === 'INT16' ? Int16Array : h.dataType === 'UINT16' ? Uint16Array : h.dataType === 'UINT8' ? Uint8Array : null;
  if (!typed || h.planar !== 1 || (h.bitsPerSample > 8 && h.littleEndian !== HOST_LITTLE_ENDIAN)) {
    const values = await readValues(open, plan, win, signal, stripRows);
    if (!into) return values;
    into.set(values);
    return into.subarray(0, values.length);
  }
  throwIfAborted(signal);
  const decoder = await decoderOf(open);
  const img = open.image;
  const tw = img.getTileWidth();
  const th = img.getTileHeight();
  const nb = h.bands;
  const nodata = h.nodata ?? nodataOf(h.dataType);
  const [x0, y0, x1, y1] = win;
  const w = x1 - x0;
  const out = into ? into.subarray(0, w * (y1 - y0)) : new Float64Array(w * (y1 - y0));
  const ra = plan.reads[0];
  const rb = plan.mode === 'nd' ? plan.reads[1] : null;
  const sa = ra.sample;
  const sb = rb?.sample ?? 0;
  for (let ty = Math.floor(y0 / th); ty * th < y1; ty++) {
    throwIfAborted(signal);
    const xs: number[] = [];
    for (let tx = Math.floor(x0 / tw); tx * tw < x1; tx++) xs.push(tx);
    const tiles = await Promise.all(xs.map((tx) => img.getTileOrStrip(tx, ty, 0, decoder, signal)));
    for (const t of tiles) {
      const s = new typed(t.data as ArrayBuffer);
      const r0 = Math.max(y0, ty * th);
      const r1 = Math.min(y1, (ty + 1) * th, h.height);
      const c0 = Math.max(x0, t.x * tw);
      const c1 = Math.min(x1, (t.x + 1) * tw);
      for (let r = r0; r < r1; r++) {
        let src = ((r - ty * th) * tw + (c0 - t.x * tw)) * nb;
        let dst = (r - y0) * w + (c0 - x0);
        if (!rb) {
          for (let c = c0; c < c1; c++, src += nb) {
            const d = s[src + sa]!;
            out[dst++] = d === nodata ? NaN : d * ra.scale + ra.offset;
          }
        } else {
          for (let c = c0; c < c1; c++, src += nb) {
            const da = s[src + sa]!;
            const db = s[src + sb]!;
            if (da === nodata || db === nodata) {
              out[dst++] = NaN;
              continue;
            }
            const va = da * ra.scale + ra.offset;
            const vb = db * rb.scale + rb.offset;
            const sum = va + vb;
            out[dst++] = sum === 0 ? NaN : (va - vb) / sum;
          }
        }
      }
    }
  }
  return out;
}
