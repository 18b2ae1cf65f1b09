/**
 * A window's values read block by block: each tile (or strip) of the window inflated once by
 * geotiff.js's own decoder for the file (main/geotiff's bounded DEFLATE) without its predictor,
 * then the two samples a value needs taken through a typed-array view, the horizontal predictor
 * undone for those samples only, in the same pass. For the pixel-interleaved 8/16-bit files of the
 * library in the machine's byte order (no predictor, or predictor 2); any other file is read by
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
/** A file's block decoder (inflate only) and its predictor tag. */
const decoders = new WeakMap<OpenGeoTiff, Promise<{ decoder: Decoder; predictor: number }>>();

function decoderOf(open: OpenGeoTiff): Promise<{ decoder: Decoder; predictor: number }> {
  let d = decoders.get(open);
  if (!d) {
    const h = open.header;
    const dir = open.image.fileDirectory;
    d = (async () => {
      const predictor = dir.hasTag('Predictor') ? Number(await dir.loadValue('Predictor')) : 1;
      const decoder = (await getDecoder(h.compression, {
        tileWidth: open.image.getTileWidth(), tileHeight: open.image.getTileHeight(), planarConfiguration: 1,
        bitsPerSample: Array.from({ length: h.bands }, () => h.bitsPerSample),
        predictor: 1, // undone here, for the samples read only
      } as never)) as Decoder;
      return { decoder, predictor };
    })();
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
  const fast = (h.dataType === 'INT16' || h.dataType === 'UINT16' || h.dataType === 'UINT8') && h.planar === 1 && (h.bitsPerSample === 8 || h.littleEndian === HOST_LITTLE_ENDIAN);
  const { decoder, predictor } = fast ? await decoderOf(open) : { decoder: null, predictor: 0 };
  if (!decoder || (predictor !== 1 && predictor !== 2)) {
    const values = await readValues(open, plan, win, signal, stripRows);
    if (!into) return values;
    into.set(values);
    return into.subarray(0, values.length);
  }
  throwIfAborted(signal);
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
  const bits = h.dataType === 'UINT8' ? 8 : 16;
  const signed = h.dataType === 'INT16';
  const row: RowSpec = {
    nb, sa: ra.sample, sb: rb ? rb.sample : -1, mask: bits === 8 ? 0xff : 0xffff, signed, predicted: predictor === 2,
    nodata, scaleA: ra.scale, offsetA: ra.offset, scaleB: rb ? rb.scale : 1, offsetB: rb ? rb.offset : 0,
  };
  for (let ty = Math.floor(y0 / th); ty * th < y1; ty++) {
    throwIfAborted(signal);
    const xs: number[] = [];
    for (let tx = Math.floor(x0 / tw); tx * tw < x1; tx++) xs.push(tx);
    const tiles = await Promise.all(xs.map((tx) => img.getTileOrStrip(tx, ty, 0, decoder, signal)));
    for (const t of tiles) {
      const s = bits === 8 ? new Uint8Array(t.data as ArrayBuffer) : new Uint16Array(t.data as ArrayBuffer);
      const r0 = Math.max(y0, ty * th);
      const r1 = Math.min(y1, (ty + 1) * th, h.height);
      const c0 = Math.max(x0, t.x * tw);
      const c1 = Math.min(x1, (t.x + 1) * tw);
      for (let r = r0; r < r1; r++) {
        convertRow(s, (r - ty * th) * tw * nb, c0 - t.x * tw, c1 - t.x * tw, row, out, (r - y0) * w + (c0 - x0));
      }
    }
  }
  return out;
}

/** How a block row's samples become values. */
interface RowSpec {
  nb: number;
  /** The samples of value A and B within a pixel (B -1: a single band's value). */
  sa: number;
  sb: number;
  /** The samples' bits as a mask (0xff, 0xffff) and whether they are two's complement. */
  mask: number;
  signed: boolean;
  /** Horizontal differencing (predictor 2): each sample is the difference to the pixel before it in the block row. */
  predicted: boolean;
  nodata: number;
  scaleA: number;
  offsetA: number;
  scaleB: number;
  offsetB: number;
}

/**
 * The values of pixels [from, to) of one block row starting at sample `base` of `s`, written to
 * `out` from `dst`. Under the predictor each of the two samples is summed from the row's start
 * (in the samples' width, wrapping as libtiff does); the other samples of the pixel are never read.
 */
function convertRow(s: Uint8Array | Uint16Array, base: number, from: number, to: number, p: RowSpec, out: Float64Array, dst: number): void {
  const { nb, sa, sb, mask, nodata, scaleA, offsetA, scaleB, offsetB } = p;
  const shift = p.signed ? 16 : 0;
  let a = 0;
  let b = 0;
  let i = base;
  if (p.predicted) {
    // The sums up to the first pixel wanted.
    for (let c = 0; c < from; c++, i += nb) {
      a = (a + s[i + sa]!) & mask;
      if (sb >= 0) b = (b + s[i + sb]!) & mask;
    }
  } else i += from * nb;
  const predicted = p.predicted;
  if (sb < 0) {
    for (let c = from; c < to; c++, i += nb) {
      a = predicted ? (a + s[i + sa]!) & mask : s[i + sa]!;
      const da = (a << shift) >> shift;
      out[dst++] = da === nodata ? NaN : da * scaleA + offsetA;
    }
    return;
  }
  for (let c = from; c < to; c++, i += nb) {
    if (predicted) {
      a = (a + s[i + sa]!) & mask;
      b = (b + s[i + sb]!) & mask;
    } else {
      a = s[i + sa]!;
      b = s[i + sb]!;
    }
    const da = (a << shift) >> shift;
    const db = (b << shift) >> shift;
    if (da === nodata || db === nodata) {
      out[dst++] = NaN;
      continue;
    }
    const va = da * scaleA + offsetA;
    const vb = db * scaleB + offsetB;
    const sum = va + vb;
    out[dst++] = sum === 0 ? NaN : (va - vb) / sum;
  }
}
