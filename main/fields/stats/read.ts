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
 * Column runs of each row of a window whose values a caller reads: row r's runs are
 * [runs[2i], runs[2i + 1]) (absolute columns, ascending, disjoint) for i from rowStart[r] to
 * rowStart[r + 1].
 */
export interface WantedRuns {
  rowStart: Int32Array;
  runs: Int32Array;
}

/**
 * The values of `plan` over `win` (row-major, NaN where invalid), as main/analysis readValues gives
 * them; written into `into` (at least the window's size) when given, so a caller reuses its buffer.
 * With `wanted`, only the values of its runs are computed (the window's other values are left as
 * they were in `into`, or may be computed anyway); the blocks are inflated whole either way.
 */
export async function readWindow(open: OpenGeoTiff, plan: ReadPlan, win: Window, signal: AbortSignal, stripRows: number, into?: Float64Array, wanted?: WantedRuns): Promise<Float64Array> {
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
  // Without `wanted`, every row's one run is the window's width.
  const runs = wanted?.runs ?? Int32Array.of(x0, x1);
  for (let ty = Math.floor(y0 / th); ty * th < y1; ty++) {
    throwIfAborted(signal);
    const xs: number[] = [];
    for (let tx = Math.floor(x0 / tw); tx * tw < x1; tx++) xs.push(tx);
    const tiles = await Promise.all(xs.map((tx) => img.getTileOrStrip(tx, ty, 0, decoder, signal)));
    for (const t of tiles) {
      const s = bits === 8 ? new Uint8Array(t.data as ArrayBuffer) : new Uint16Array(t.data as ArrayBuffer);
      const r0 = Math.max(y0, ty * th);
      const r1 = Math.min(y1, (ty + 1) * th, h.height);
      const col0 = t.x * tw;
      const c0 = Math.max(x0, col0);
      const c1 = Math.min(x1, col0 + tw);
      for (let r = r0; r < r1; r++) {
        const k0 = wanted ? wanted.rowStart[r - y0]! : 0;
        const k1 = wanted ? wanted.rowStart[r - y0 + 1]! : 1;
        if (k0 < k1) convertRow(s, (r - ty * th) * tw * nb, col0, runs, k0, k1, c0, c1, row, out, (r - y0) * w - x0);
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
 * The values of one block row's pixels in runs k0 to k1 of `runs` (absolute columns), clipped to
 * [lo, hi): the block row starts at sample `base` of `s` and at column `col0`; the value of column
 * x goes to `out[dst + x]`. Under the predictor each of the two samples is summed from the row's
 * start (in the samples' width, wrapping as libtiff does), through the columns between runs too;
 * the other samples of the pixel are never read.
 */
function convertRow(s: Uint8Array | Uint16Array, base: number, col0: number, runs: Int32Array, k0: number, k1: number, lo: number, hi: number, p: RowSpec, out: Float64Array, dst: number): void {
  const { nb, sa, sb, mask, nodata, scaleA, offsetA, scaleB, offsetB } = p;
  const shift = p.signed ? 16 : 0;
  const predicted = p.predicted;
  let a = 0;
  let b = 0;
  // The column whose samples are at i, the sums being those of the columns before it.
  let c = col0;
  let i = base;
  for (let k = k0; k < k1; k++) {
    if (runs[2 * k]! >= hi) break;
    const from = Math.max(lo, runs[2 * k]!);
    const to = Math.min(hi, runs[2 * k + 1]!);
    if (from >= to) continue;
    if (predicted) {
      // The sums up to the run's first pixel.
      for (; c < from; c++, i += nb) {
        a = (a + s[i + sa]!) & mask;
        if (sb >= 0) b = (b + s[i + sb]!) & mask;
      }
    } else {
      i += (from - c) * nb;
      c = from;
    }
    if (sb < 0) {
      for (; c < to; c++, i += nb) {
        a = predicted ? (a + s[i + sa]!) & mask : s[i + sa]!;
        const da = (a << shift) >> shift;
        out[dst + c] = da === nodata ? NaN : da * scaleA + offsetA;
      }
      continue;
    }
    for (; c < to; c++, i += nb) {
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
        out[dst + c] = NaN;
        continue;
      }
      const va = da * scaleA + offsetA;
      const vb = db * scaleB + offsetB;
      const sum = va + vb;
      out[dst + c] = sum === 0 ? NaN : (va - vb) / sum;
    }
  }
}
