/**
 * DEFLATE compression of a GeoTIFF's blocks as the writer produces them: each block is cut straight
 * into a shared slot and a DEFLATE thread (deflate-threads.ts) applies the TIFF predictor and Node's
 * zlib, several blocks at once; the compressed blocks are appended to a file, from their shared
 * output slots, in the order they were submitted. A file takes its slots once (and leaves them for
 * the next), so the writer's thread allocates nothing per block (each block's zlib buffers,
 * allocated there, would make its garbage collector run a full mark-compact every ~16 MB of them).
 *
 * Node's zlib was chosen by measurement on the simulator's 4-band INT16 composites with predictor 2
 * (512 x 512 tiles, one core): zlib level 6 ~28 MB/s of samples, fflate (pure JavaScript) level 6
 * ~13 MB/s, and no libdeflate binding installs without building or downloading a binary.
 */
import type { FileHandle } from 'node:fs/promises';
import { writeExactly } from '../shared/file-io.js';
import { SharedBufferPool } from '../shared/shared-buffers.js';
import { deflateThreadCount, deflateThreads } from './deflate-threads.js';

/**
 * The zlib level of `writePyramid`'s files, chosen by measurement. The simulator's 4,000 x
 * 4,000 x 4-band INT16 composite with mean overviews (171 MB of samples) packs to 40.0 MB at level
 * 1 (2.5 s of CPU), 33.1 MB at level 4 (3.4 s) and 29.7 MB at level 6 (8.5 s, GDAL's default
 * level); `gdal_translate -of COG -co COMPRESS=DEFLATE -co PREDICTOR=YES` (libdeflate, level 6,
 * cubic overviews) writes 35.1 MB. Level 4 is 11 % larger than level 6 for 40 % of its CPU.
 */
export const DEFAULT_DEFLATE_LEVEL = 4;

/**
 * zlib's memLevel: its largest hash table and symbol buffer, 4-5 % faster than the default 8 on the
 * simulator's composites at level 1 (198 -> 208 MB/s of samples on one core), the same size.
 */
const MEM_LEVEL = 9;

/** Blocks compressed or queued at once: one per DEFLATE thread, plus one queued so no thread waits for the writer. */
export function deflateConcurrency(): number {
  return deflateThreadCount() + 1;
}

/** Largest zlib stream of `n` input bytes (zlib's deflateBound, with room to spare). */
function deflateBound(n: number): number {
  return n + (n >> 10) + 1024;
}

/** The predictor's geometry of a level's blocks. */
export interface BlockShape {
  /** Samples in a block's row, and its rows. */
  rowSamples: number;
  rows: number;
}

/** The predictor of every block of a file and its sample layout. */
export interface PredictorSpec {
  predictor: 2 | 3;
  sampleBytes: 1 | 2 | 4;
  /** Samples per pixel. */
  spp: number;
}

/** Where the compressed blocks of each level went: offsets in the sink file and byte counts, per level in row-major order. */
export interface BlockTable {
  offsets: number[];
  counts: number[];
}

/**
 * Compresses blocks on the DEFLATE threads, at most {@link deflateConcurrency} at once, and appends
 * them to `sink` from `start` in the order they were submitted (so a level's blocks stay in
 * row-major order and together). {@link submit} waits for a free slot; {@link finish} waits for
 * every block to be written and returns where each went. A block's compression is never abandoned
 * half-way (it takes milliseconds): after a failure or an abort, {@link drain} waits for those under
 * way, so the slots are not reused while a thread writes them.
 */
export class BlockDeflater {
  private readonly slots: Slot[];
  private readonly free: Slot[];
  private readonly tables: BlockTable[];
  private readonly ready = new Map<number, { level: number; index: number; slot: Slot; raw: number; length: number }>();
  private readonly waiters: (() => void)[] = [];
  /** Blocks submitted and not yet written (compressing, waiting for an earlier one, or being written). */
  private busy = 0;
  private submitted = 0;
  private flushed = 0;
  private at: number;
  private writing: Promise<void> = Promise.resolve();
  private error: Error | null = null;
  /** The tasks' signal: a block under way is finished, never cut off (see the class). */
  private readonly never = new AbortController().signal;

  constructor(
    private readonly sink: FileHandle,
    start: number,
    blocksPerLevel: number[],
    private readonly shapes: BlockShape[],
    private readonly spec: PredictorSpec,
    maxBlockBytes: number,
    private readonly onWritten: (rawBytes: number) => void,
    private readonly level = DEFAULT_DEFLATE_LEVEL,
    slots = deflateConcurrency(),
  ) {
    this.at = start;
    this.slots = Array.from({ length: Math.max(1, slots) }, () => takeSlot(maxBlockBytes));
    this.free = [...this.slots];
    this.tables = blocksPerLevel.map((n) => ({ offsets: new Array<number>(n).fill(0), counts: new Array<number>(n).fill(0) }));
  }

  /** Bytes of the sink written so far, from its start (the end of the last block written). */
  get end(): number {
    return this.at;
  }

  /**
   * Waits for a free slot, has `fill` write block `index` of `level` (its `bytes` raw bytes) into
   * it, and starts compressing it.
   */
  async submit(level: number, index: number, bytes: number, fill: (dst: Uint8Array) => void): Promise<void> {
    while (!this.free.length && !this.error) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.error) throw this.error;
    const slot = this.free.pop()!;
    try {
      if (bytes > slot.input.byteLength) throw new Error(`internal: a block of ${bytes} bytes exceeds its slot of ${slot.input.byteLength}`);
      fill(new Uint8Array(slot.input, 0, bytes));
    } catch (e) {
      this.free.push(slot);
      throw e;
    }
    const seq = this.submitted++;
    this.busy++;
    const shape = this.shapes[level]!;
    const task = {
      input: slot.input, output: slot.output, bytes, ...this.spec, ...shape, level: this.level, memLevel: MEM_LEVEL,
    };
    deflateThreads().run(task, this.never).then(
      (length) => {
        if (this.error) return this.release(slot);
        this.ready.set(seq, { level, index, slot, raw: bytes, length });
        this.flush();
      },
      (e: unknown) => {
        this.release(slot);
        this.fail(e as Error);
      },
    );
  }

  /** Waits for every submitted block to be compressed and written; returns each level's offsets and byte counts. */
  async finish(): Promise<BlockTable[]> {
    while ((this.busy > 0 || this.flushed < this.submitted) && !this.error) await new Promise<void>((resolve) => this.waiters.push(resolve));
    await this.writing;
    if (this.error) throw this.error;
    return this.tables;
  }

  /**
   * Waits for the blocks under way, ignoring their outcome (before the sink is closed, after the
   * file or a failure), and gives the slots back for the next file.
   */
  async drain(): Promise<void> {
    this.fail(new Error('the write was abandoned'));
    while (this.busy > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
    await this.writing.catch(() => undefined);
    for (const slot of this.slots.splice(0)) giveSlot(slot);
  }

  /** Queues the writes of the blocks that are next in order; each slot frees when its block is written. */
  private flush(): void {
    for (let b = this.ready.get(this.flushed); b; b = this.ready.get(this.flushed)) {
      this.ready.delete(this.flushed++);
      const t = this.tables[b.level]!;
      const pos = this.at;
      t.offsets[b.index] = pos;
      t.counts[b.index] = b.length;
      this.at += b.length;
      const { slot, length, raw } = b;
      this.writing = this.writing.then(async () => {
        if (this.error) return;
        await writeExactly(this.sink, Buffer.from(slot.output, 0, length), pos);
        this.onWritten(raw);
      }).catch((e: unknown) => this.fail(e as Error)).finally(() => this.release(slot));
    }
  }

  private release(slot: Slot): void {
    this.busy--;
    this.free.push(slot);
    this.wake();
  }

  private fail(e: Error): void {
    this.error ??= e;
    // Blocks compressed but waiting for an earlier one are dropped, and their slots freed.
    for (const b of this.ready.values()) this.release(b.slot);
    this.ready.clear();
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** A block's shared buffers: its raw bytes in, its compressed bytes out. */
interface Slot {
  input: SharedArrayBuffer;
  output: SharedArrayBuffer;
}

/** Slots' buffers of finished files, kept for the next ones: two files' worth. */
const spare = new SharedBufferPool(4 * deflateConcurrency());

function takeSlot(bytes: number): Slot {
  return { input: spare.take(bytes), output: spare.take(deflateBound(bytes)) };
}

function giveSlot(slot: Slot): void {
  spare.give(slot.input);
  spare.give(slot.output);
}
