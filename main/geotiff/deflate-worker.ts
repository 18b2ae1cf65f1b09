/**
 * Entry of the DEFLATE threads (deflate-threads.ts): encodes one block's TIFF predictor from the
 * shared input slot it is sent and compresses it with zlib into the shared output slot; answers the
 * compressed length. Bundled as out/main/geotiff-deflate-worker.js.
 */
import { deflateSync } from 'node:zlib';
import { serveTasks } from '../shared/worker-pool.js';
import { encodePredictor } from './predictor.js';
import type { DeflateTask } from './deflate-threads.js';

/** The predictor's output, kept for the next block of the same size. */
let scratch = new Uint8Array(0);

serveTasks<DeflateTask, number>(async (t) => {
  const src = new Uint8Array(t.input, 0, t.bytes);
  if (scratch.length !== t.bytes) scratch = new Uint8Array(t.bytes);
  encodePredictor(src, scratch, t.predictor, t.rowSamples, t.rows, t.sampleBytes, t.spp);
  // One output buffer as large as the slot: zlib never stops to grow it.
  const out = deflateSync(scratch, { level: t.level, memLevel: t.memLevel, chunkSize: t.output.byteLength });
  if (out.length > t.output.byteLength) throw new Error(`internal: a compressed block of ${out.length} bytes exceeds its slot of ${t.output.byteLength}`);
  new Uint8Array(t.output, 0, out.length).set(out);
  return { result: out.length };
});
