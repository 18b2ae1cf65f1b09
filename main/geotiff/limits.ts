/**
 * Bounds on what a GeoTIFF may declare before main reads or decodes it, so that one small hostile
 * file cannot freeze main or exhaust its memory: bands, GDAL_METADATA size, samples in the image,
 * and the bytes one tile or strip may decode to (geotiff's own inflate has no output bound).
 */
import { inflateSync } from 'node:zlib';
import { addDecoder, getDecoder } from 'geotiff';

/** SamplesPerPixel above this is refused (the service delivers at most a few dozen bands). */
export const MAX_BANDS = 256;
/** GDAL_METADATA text above this many characters is refused. */
export const MAX_GDAL_METADATA_CHARS = 512 * 1024;
/** width × height × bands above this is refused (2^32 samples: 65536² pixels of one band). */
export const MAX_IMAGE_SAMPLES = 2 ** 32;
/** Images (full resolution + overviews) in one file. */
export const MAX_IMAGES = 64;
/** Strips or tiles in one image (their offset tables are read whole): 4 Mi, 65536² pixels in 32 x 32 tiles. */
export const MAX_BLOCKS = 4 * 1024 * 1024;
/** One tile or strip may decode to at most this many bytes. */
export const MAX_BLOCK_BYTES = 256 * 1024 * 1024;

/** What {@link checkDeclaredSize} needs from a header. */
export interface DeclaredSize {
  width: number;
  height: number;
  bands: number;
  /** Sum of BitsPerSample over the samples one block holds. */
  blockBits: number;
  blockWidth: number;
  blockRows: number;
  /** Separate planes of blocks: the bands when band-interleaved (PlanarConfiguration 2), else 1. */
  planes?: number;
  metadataChars: number;
}

/** Throws an error naming the field and the limit when a header declares more than main reads. */
export function checkDeclaredSize(d: DeclaredSize): void {
  if (!(d.bands >= 1 && d.bands <= MAX_BANDS)) {
    throw new Error(`SamplesPerPixel is ${d.bands}; Swath reads 1 to ${MAX_BANDS} bands`);
  }
  if (d.metadataChars > MAX_GDAL_METADATA_CHARS) {
    throw new Error(`the GDAL_METADATA tag has ${d.metadataChars} characters; Swath reads at most ${MAX_GDAL_METADATA_CHARS}`);
  }
  if (!(d.width >= 1 && d.height >= 1)) throw new Error(`the image is ${d.width} x ${d.height} pixels; both must be at least 1`);
  const samples = d.width * d.height * d.bands;
  if (samples > MAX_IMAGE_SAMPLES) {
    throw new Error(`width x height x bands is ${d.width} x ${d.height} x ${d.bands} = ${samples} samples; Swath reads at most ${MAX_IMAGE_SAMPLES}`);
  }
  if (!(d.blockWidth >= 1 && d.blockRows >= 1)) {
    throw new Error(`a tile or strip is ${d.blockWidth} x ${d.blockRows} pixels; both must be at least 1`);
  }
  const blocks = Math.ceil(d.width / d.blockWidth) * Math.ceil(d.height / d.blockRows) * (d.planes ?? 1);
  if (blocks > MAX_BLOCKS) {
    throw new Error(`the image is cut into ${blocks} tiles or strips of ${d.blockWidth} x ${d.blockRows} pixels; Swath reads at most ${MAX_BLOCKS}`);
  }
  const blockBytes = blockByteLimit(d.blockWidth, d.blockRows, d.blockBits);
  if (blockBytes > MAX_BLOCK_BYTES) {
    throw new Error(`one tile or strip (${d.blockWidth} x ${d.blockRows} pixels) decodes to ${blockBytes} bytes; Swath decodes at most ${MAX_BLOCK_BYTES}`);
  }
}

/** Bytes a block of `width` × `rows` pixels of `bits` bits each decodes to (rows padded to whole bytes). */
export function blockByteLimit(width: number, rows: number, bits: number): number {
  return Math.ceil((width * bits) / 8) * rows;
}

function sumBits(bitsPerSample: number | ArrayLike<number>, samples: number): number {
  if (typeof bitsPerSample === 'number') return bitsPerSample * samples;
  let sum = 0;
  for (let i = 0; i < bitsPerSample.length; i++) sum += bitsPerSample[i]!;
  return sum;
}

interface DecoderParameters {
  tileWidth: number;
  tileHeight: number;
  predictor: number;
  bitsPerSample: number | ArrayLike<number>;
  planarConfiguration: number;
  samplesPerPixel?: number;
}

/** The bytes a deflate block may inflate to: its declared pixels × the bits of the samples it holds. */
function declaredBlockBytes(p: DecoderParameters): number {
  const bits = typeof p.bitsPerSample === 'number'
    ? p.bitsPerSample * (p.planarConfiguration === 2 ? 1 : (p.samplesPerPixel ?? 1))
    : p.planarConfiguration === 2 ? p.bitsPerSample[0]! : sumBits(p.bitsPerSample, p.bitsPerSample.length);
  return blockByteLimit(p.tileWidth, p.tileHeight, bits);
}

/** Inflates one block, refusing output beyond its declared size: a deflate bomb fails instead of filling memory. */
export function boundedInflate(buffer: ArrayBufferLike, p: DecoderParameters): ArrayBufferLike {
  const limit = declaredBlockBytes(p);
  let out: Buffer;
  try {
    // One output chunk of the block's size (up to 16 MiB): zlib inflates into it in one call and
    // the block needs no concatenation; a bigger declared block grows chunk by chunk as it inflates.
    out = inflateSync(new Uint8Array(buffer), { maxOutputLength: Math.max(1, limit), chunkSize: Math.max(64, Math.min(limit, MAX_INFLATE_CHUNK)) });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new Error(`a deflate tile or strip inflates to more than its declared ${limit} bytes (${p.tileWidth} x ${p.tileHeight} pixels)`);
    }
    throw e;
  }
  return out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out.buffer : out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
}

/** The largest output chunk a block's inflate allocates before it knows the block's real size. */
const MAX_INFLATE_CHUNK = 16 << 20;

type DecoderClass = new (p: DecoderParameters) => { parameters: DecoderParameters; decodeBlock(b: ArrayBufferLike): ArrayBufferLike };

let installed = false;

/** Replaces geotiff's deflate decoder (8 and 32946) with {@link boundedInflate}, once per process. */
export function installBoundedDecoders(): void {
  if (installed) return;
  installed = true;
  addDecoder([8, 32946], async () => {
    // geotiff does not export BaseDecoder (whose decode() applies the predictor); extend its raw decoder instead.
    const raw = await getDecoder(1, { tileWidth: 1, tileHeight: 1, predictor: 1, bitsPerSample: 8, planarConfiguration: 1 });
    const Raw = raw.constructor as DecoderClass;
    class BoundedDeflateDecoder extends Raw {
      override decodeBlock(buffer: ArrayBufferLike): ArrayBufferLike {
        return boundedInflate(buffer, this.parameters);
      }
    }
    return BoundedDeflateDecoder as never;
  }, undefined, false);
}
