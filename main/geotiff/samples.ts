/** Sample types the GeoTIFF writers carry, their arrays and their default nodata. */

/**
 * 8/16-bit integer samples: what the service delivers (INT16, UINT8) and most imagery uses (UINT16);
 * FLOAT32 only for what Swath derives itself (change layers), written but never read as a source type.
 */
export type SampleType = 'UINT8' | 'INT16' | 'UINT16' | 'FLOAT32';

/** Interleaved pixels of one of the {@link SampleType}s. */
export type PixelArray = Uint8Array | Int16Array | Uint16Array | Float32Array;

/**
 * The integer sample type of BitsPerSample and SampleFormat (1 unsigned, 2 signed), or null for any
 * other: readers (overview copies, mosaics) copy integer samples only, so a float file stays null here.
 */
export function sampleTypeOf(bits: number, format: number): SampleType | null {
  if (bits === 8 && format === 1) return 'UINT8';
  if (bits === 16 && format === 2) return 'INT16';
  if (bits === 16 && format === 1) return 'UINT16';
  return null;
}

/** The nodata value used when a file names none: -32768 for INT16 (the service's), -9999 for FLOAT32, 0 for the unsigned types. */
export function nodataOf(dataType: SampleType | null): number {
  if (dataType === 'FLOAT32') return -9999;
  return dataType === 'INT16' ? -32768 : 0;
}

/** Bytes per sample of a type. */
export function bytesPerSample(dataType: SampleType): 1 | 2 | 4 {
  if (dataType === 'FLOAT32') return 4;
  return dataType === 'UINT8' ? 1 : 2;
}

/** A zeroed array of `n` samples. */
export function newSamples(dataType: SampleType, n: number): PixelArray {
  if (dataType === 'UINT8') return new Uint8Array(n);
  if (dataType === 'INT16') return new Int16Array(n);
  if (dataType === 'FLOAT32') return new Float32Array(n);
  return new Uint16Array(n);
}

/** The samples of `bytes` (aligned to the type's size) as an array of `dataType`, sharing its memory. */
export function samplesOf(dataType: SampleType, bytes: Uint8Array): PixelArray {
  const n = bytes.byteLength / bytesPerSample(dataType);
  if (dataType === 'UINT8') return bytes;
  if (dataType === 'INT16') return new Int16Array(bytes.buffer, bytes.byteOffset, n);
  if (dataType === 'FLOAT32') return new Float32Array(bytes.buffer, bytes.byteOffset, n);
  return new Uint16Array(bytes.buffer, bytes.byteOffset, n);
}

/**
 * The large temporary arrays of one write, made zeroed and freed together at its end: their memory
 * goes back now rather than at the garbage collector's next full collection, which comes late on
 * a thread that allocates little else (a composite's ~25 MB would live into the next one).
 * Freed by `ArrayBuffer.prototype.transfer`, where the runtime has it (Node 21 and later).
 */
export class WriteScratch {
  private readonly made: PixelArray[] = [];

  /** A zeroed array of `n` samples, freed by {@link release}. */
  samples(dataType: SampleType, n: number): PixelArray {
    const a = newSamples(dataType, n);
    this.made.push(a);
    return a;
  }

  /** Frees every array made (and detaches their views): none may be read afterwards. */
  release(): void {
    for (const a of this.made.splice(0)) {
      const b = a.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
      if (typeof b.transfer === 'function' && b.byteLength > 0) b.transfer(0);
    }
  }
}
