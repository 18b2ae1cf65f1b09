/**
 * DEFLATE compression of a GeoTIFF's blocks as the writer produces them: the TIFF predictor is
 * applied on main's thread (one pass over the block, from the pixel buffer into the block's own
 * input buffer) and Node's zlib compresses on the libuv thread pool, several blocks at once; the
 * compressed blocks are appended to a file in the order they were submitted.
 *
 * Node's zlib was chosen by measurement on the simulator's 4-band INT16 composites with predictor 2
 * (512 x 512 tiles, one core): zlib level 6 ~28 MB/s of samples, fflate (pure JavaScript) level 6
 * ~13 MB/s, and no libdeflate binding installs without building or downloading a binary.
 */
import os from 'node:os';
import { deflate, type ZlibOptions } from 'node:zlib';
import type { FileHandle } from 'node:fs/promises';
import { writeExactly } from '../shared/file-io.js';

/**
 * The zlib level of `writePyramid`'s files, chosen by measurement. The simulator's 4,000 x
 * 4,000 x 4-band INT16 composite with mean overviews (171 MB of samples) packs to 40.0 MB at level
 * 1 (2.5 s of CPU), 33.1 MB at level 4 (3.4 s) and 29.7 MB at level 6 (8.5 s, GDAL's default
 * level); `gdal_translate -of COG -co COMPRESS=DEFLATE -co PREDICTOR=YES` (libdeflate, level 6,
 * cubic overviews) writes 35.1 MB. Level 4 is 11 % larger than level 6 for 40 % of its CPU.
 */
export const DEFAULT_DEFLATE_LEVEL = 4;

/** Blocks compressed at once: one per core, plus one queued so no pool thread waits for main. */
export function deflateConcurrency(): number {
  return Math.max(2, Math.min(3, os.availableParallelism() + 1));
}

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

/** Where the compressed blocks of each level went: offsets in the sink file and byte counts, per level in row-major order. */
export interface BlockTable {
  offsets: number[];
  counts: number[];
}

/**
 * Compresses blocks on the thread pool, at most {@link deflateConcurrency} at once, and appends
 * them to `sink` from `start` in the order they were submitted (so a level's blocks stay in
 * row-major order and together). {@link submit} waits for a free slot; {@link finish} waits for
 * every block to be written and returns where each went.
 */
export class BlockDeflater {
  private readonly opts: ZlibOptions;
  private readonly slots: number;
  private readonly tables: BlockTable[];
  /** Input buffers of finished jobs, reused by size. */
  private readonly free: Uint8Array[] = [];
  private readonly ready = new Map<number, { level: number; index: number; data: Buffer; input: Uint8Array }>();
  private readonly waiters: (() => void)[] = [];
  private busy = 0;
  private submitted = 0;
  private flushed = 0;
  private at: number;
  private writing: Promise<void> = Promise.resolve();
  private error: Error | null = null;

  constructor(
    private readonly sink: FileHandle,
    start: number,
    blocksPerLevel: number[],
    private readonly encode: (level: number, src: Uint8Array, dst: Uint8Array) => void,
    private readonly onWritten: (rawBytes: number) => void,
    level = DEFAULT_DEFLATE_LEVEL,
    slots = deflateConcurrency(),
  ) {
    this.at = start;
    this.opts = { level };
    this.slots = Math.max(1, slots);
    this.tables = blocksPerLevel.map((n) => ({ offsets: new Array<number>(n).fill(0), counts: new Array<number>(n).fill(0) }));
  }

  /** Bytes of the sink written so far, from its start (the end of the last block written). */
  get end(): number {
    return this.at;
  }

  /**
   * Encodes block `index` of `level` from `src` (its raw samples, which may be reused once this
   * resolves) and starts compressing it.
   */
  async submit(level: number, index: number, src: Uint8Array): Promise<void> {
    while (this.busy >= this.slots && !this.error) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.error) throw this.error;
    const i = this.free.findIndex((b) => b.length === src.length);
    const input = i >= 0 ? this.free.splice(i, 1)[0]! : new Uint8Array(src.length);
    this.encode(level, src, input);
    const seq = this.submitted++;
    this.busy++;
    // Output chunks of a quarter of the block: most blocks compress in one pass on the pool instead of
    // coming back to this thread every 16 KiB (zlib's default chunk), and no block holds a worst-case
    // buffer larger than its input until it is written (that churn of external memory costs main's GC).
    deflate(input, { ...this.opts, chunkSize: Math.max(64 * 1024, input.length >> 2) }, (err, data) => {
      if (err || this.error) {
        this.busy--;
        return this.fail(err ?? this.error!);
      }
      this.ready.set(seq, { level, index, data, input });
      this.flush();
    });
  }

  /** Waits for every submitted block to be compressed and written; returns each level's offsets and byte counts. */
  async finish(): Promise<BlockTable[]> {
    while ((this.busy > 0 || this.flushed < this.submitted) && !this.error) await new Promise<void>((resolve) => this.waiters.push(resolve));
    await this.writing;
    if (this.error) throw this.error;
    return this.tables;
  }

  /** Waits for the jobs under way, ignoring their outcome (before the sink is closed after a failure). */
  async drain(): Promise<void> {
    this.fail(new Error('the write was abandoned'));
    while (this.busy > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
    await this.writing.catch(() => undefined);
  }

  /** Hands the blocks that are next in order to one write; their slots free when it is done. */
  private flush(): void {
    const batch: Buffer[] = [];
    const inputs: Uint8Array[] = [];
    let raw = 0;
    const pos = this.at;
    for (let b = this.ready.get(this.flushed); b; b = this.ready.get(this.flushed)) {
      this.ready.delete(this.flushed++);
      const t = this.tables[b.level]!;
      t.offsets[b.index] = this.at;
      t.counts[b.index] = b.data.length;
      this.at += b.data.length;
      batch.push(b.data);
      inputs.push(b.input);
      raw += b.input.length;
    }
    if (!batch.length) return;
    const data = batch.length === 1 ? batch[0]! : Buffer.concat(batch);
    this.writing = this.writing.then(async () => {
      if (this.error) return;
      await writeExactly(this.sink, data, pos);
      this.onWritten(raw);
    }).catch((e: unknown) => this.fail(e as Error)).finally(() => {
      this.busy -= batch.length;
      this.free.push(...inputs);
      this.free.splice(0, Math.max(0, this.free.length - this.slots));
      this.wake();
    });
  }

  private fail(e: Error): void {
    this.error ??= e;
    // Blocks compressed but waiting for an earlier one are dropped with their slots.
    this.busy -= this.ready.size;
    this.ready.clear();
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
