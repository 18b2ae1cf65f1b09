/**
 * Layout and header serialisation for pixel-interleaved (Cloud Optimized) GeoTIFFs.
 * Uncompressed blocks have sizes known in advance, so every offset is computed before any pixel
 * exists and the pixel data can then be streamed sequentially after the header. DEFLATE-compressed
 * files ({@link TiffSpec.deflate}) have a header of the same size whatever their block sizes: it is
 * serialised again with the offsets and byte counts once the blocks are written.
 */

const T_ASCII = 2;
const T_SHORT = 3;
const T_LONG = 4;
const T_DOUBLE = 12;
const T_LONG8 = 16;

const TYPE_SIZE: Record<number, number> = { [T_ASCII]: 1, [T_SHORT]: 2, [T_LONG]: 4, [T_DOUBLE]: 8, [T_LONG8]: 8 };

/** One resolution level: either one strip covering the whole image or a grid of square tiles. */
export interface TiffLevelSpec {
  width: number;
  height: number;
  tiled: boolean;
  /** Tile edge in pixels (multiple of 16); ignored when not tiled. */
  tileSize: number;
}

/** Georeferencing written into the first IFD. */
export interface TiffGeoSpec {
  epsg: number;
  geographic: boolean;
  originX: number;
  originY: number;
  pixelSize: number;
}

/** Everything the header depends on. */
export interface TiffSpec {
  levels: TiffLevelSpec[];
  samplesPerPixel: number;
  bitsPerSample: 8 | 16 | 32;
  signed: boolean;
  /** IEEE floating point samples (SampleFormat 3); `signed` is then ignored. */
  float?: boolean;
  geo: TiffGeoSpec;
  nodata: string;
  metadataXml: string;
  /** Forces BigTIFF; otherwise it is chosen only when the file would not fit classic 32-bit offsets. */
  bigTiff?: boolean;
  /**
   * DEFLATE-compressed blocks (Compression 8) with this TIFF Predictor: 2 (horizontal differencing,
   * integers) or 3 (floating point). The block offsets and byte counts are then `blocks` (per
   * level, blocks in row-major order); without `blocks` they are zeros of the same count, so the
   * header has its final size before any block is compressed.
   */
  deflate?: { predictor: 2 | 3; blocks?: { offsets: number[]; counts: number[] }[] };
}

/** Where each level's blocks go; blocks of a level are contiguous and all the same size. */
export interface TiffLevelLayout {
  width: number;
  height: number;
  tiled: boolean;
  blockWidth: number;
  blockHeight: number;
  blocksAcross: number;
  blocksDown: number;
  blockBytes: number;
  dataOffset: number;
}

/** The serialised header (all IFDs) plus the data placement. */
export interface TiffLayout {
  bigTiff: boolean;
  header: Buffer;
  levels: TiffLevelLayout[];
  /** Levels in the order their data appears in the file (smallest overview first). */
  dataOrder: number[];
  totalBytes: number;
}

interface Entry {
  tag: number;
  type: number;
  count: number;
  write: (dv: DataView, at: number) => void;
}

function shorts(tag: number, values: number[]): Entry {
  return {
    tag,
    type: T_SHORT,
    count: values.length,
    write: (dv, at) => values.forEach((v, i) => dv.setUint16(at + 2 * i, v, true)),
  };
}

function longs(tag: number, values: number[]): Entry {
  return {
    tag,
    type: T_LONG,
    count: values.length,
    write: (dv, at) => values.forEach((v, i) => dv.setUint32(at + 4 * i, v, true)),
  };
}

function doubles(tag: number, values: number[]): Entry {
  return {
    tag,
    type: T_DOUBLE,
    count: values.length,
    write: (dv, at) => values.forEach((v, i) => dv.setFloat64(at + 8 * i, v, true)),
  };
}

function ascii(tag: number, text: string): Entry {
  // TIFF ASCII is 7-bit; callers escape anything else before it gets here.
  const bytes = Buffer.from(text + '\0', 'latin1');
  return {
    tag,
    type: T_ASCII,
    count: bytes.length,
    write: (dv, at) => bytes.forEach((b, i) => dv.setUint8(at + i, b)),
  };
}

/** An offsets or byte-count array of given values (compressed blocks). */
function listed(tag: number, big: boolean, values: number[]): Entry {
  return {
    tag,
    type: big ? T_LONG8 : T_LONG,
    count: values.length,
    write: (dv, at) => values.forEach((v, i) => (big ? dv.setBigUint64(at + 8 * i, BigInt(v), true) : dv.setUint32(at + 4 * i, v, true))),
  };
}

/** An offsets array whose values are generated lazily (first entry offset, constant stride). */
function offsets(tag: number, big: boolean, count: number, first: () => number, stride: number): Entry {
  return {
    tag,
    type: big ? T_LONG8 : T_LONG,
    count,
    write: (dv, at) => {
      const f = first();
      for (let i = 0; i < count; i++) {
        if (big) dv.setBigUint64(at + 8 * i, BigInt(f + i * stride), true);
        else dv.setUint32(at + 4 * i, f + i * stride, true);
      }
    },
  };
}

function geoKeys(geo: TiffGeoSpec): number[] {
  const keys: number[][] = [
    [1024, 0, 1, geo.geographic ? 2 : 1], // GTModelTypeGeoKey
    [1025, 0, 1, 1], // GTRasterTypeGeoKey = PixelIsArea
  ];
  if (geo.geographic) {
    keys.push([2048, 0, 1, geo.epsg]); // GeographicTypeGeoKey
    keys.push([2054, 0, 1, 9102]); // GeogAngularUnitsGeoKey = degree
  } else {
    keys.push([3072, 0, 1, geo.epsg]); // ProjectedCSTypeGeoKey
    keys.push([3076, 0, 1, 9001]); // ProjLinearUnitsGeoKey = metre
  }
  return [1, 1, 0, keys.length, ...keys.flat()];
}

function align(n: number, a: number): number {
  return Math.ceil(n / a) * a;
}

/** Computes the full file layout and serialises all IFDs; pixel blocks are written later at the returned offsets. */
/**
 * Sizes of a pyramid: full resolution, then 2x overviews (rounded up) until one fits a tile, the
 * rule the service, the mosaic writer and the overview copies share. Level i is 2^i coarser.
 */
export function pyramidLevels(width: number, height: number, tile: number): { width: number; height: number }[] {
  const levels = [{ width, height }];
  let f = 1;
  while (Math.ceil(width / f) > tile || Math.ceil(height / f) > tile) {
    f *= 2;
    levels.push({ width: Math.ceil(width / f), height: Math.ceil(height / f) });
  }
  return levels;
}

export function buildTiffLayout(spec: TiffSpec): TiffLayout {
  const bytesPerPixel = (spec.samplesPerPixel * spec.bitsPerSample) / 8;
  const levels: TiffLevelLayout[] = spec.levels.map((l) => {
    const bw = l.tiled ? l.tileSize : l.width;
    const bh = l.tiled ? l.tileSize : l.height;
    return {
      width: l.width,
      height: l.height,
      tiled: l.tiled,
      blockWidth: bw,
      blockHeight: bh,
      blocksAcross: Math.ceil(l.width / bw),
      blocksDown: Math.ceil(l.height / bh),
      blockBytes: bw * bh * bytesPerPixel,
      dataOffset: 0,
    };
  });
  const dataBytes = levels.reduce((s, l) => s + l.blockBytes * l.blocksAcross * l.blocksDown, 0);
  // Header is tiny compared to the data; 64 MiB of slack keeps the classic/BigTIFF decision safe.
  const big = spec.bigTiff ?? dataBytes + 64 * 1024 * 1024 > 0xffffffff;

  const spp = spec.samplesPerPixel;
  const deflate = spec.deflate;
  const ifdEntries: Entry[][] = levels.map((l, i) => {
    const n = l.blocksAcross * l.blocksDown;
    const given = deflate?.blocks?.[i];
    if (given && (given.offsets.length !== n || given.counts.length !== n)) throw new Error(`level ${i} has ${n} blocks, not ${given.offsets.length}`);
    const blockOffsets = (): Entry => (deflate ? listed(l.tiled ? 324 : 273, big, given?.offsets ?? new Array<number>(n).fill(0)) : offsets(l.tiled ? 324 : 273, big, n, () => l.dataOffset, l.blockBytes));
    const blockCounts = (): Entry => (deflate ? listed(l.tiled ? 325 : 279, big, given?.counts ?? new Array<number>(n).fill(0)) : offsets(l.tiled ? 325 : 279, big, n, () => l.blockBytes, 0));
    const e: Entry[] = [
      longs(254, [i === 0 ? 0 : 1]), // NewSubfileType: 1 = reduced-resolution image
      longs(256, [l.width]),
      longs(257, [l.height]),
      shorts(258, new Array<number>(spp).fill(spec.bitsPerSample)),
      shorts(259, [deflate ? 8 : 1]), // Adobe DEFLATE, or no compression
      shorts(262, [1]), // MinIsBlack
    ];
    if (!l.tiled) {
      e.push(blockOffsets());
    }
    e.push(shorts(277, [spp]));
    if (!l.tiled) {
      e.push(longs(278, [l.blockHeight]));
      e.push(blockCounts());
    }
    e.push(shorts(284, [1])); // chunky / pixel-interleaved
    if (deflate) e.push(shorts(317, [deflate.predictor]));
    if (l.tiled) {
      e.push(longs(322, [l.blockWidth]));
      e.push(longs(323, [l.blockHeight]));
      e.push(blockOffsets());
      e.push(blockCounts());
    }
    if (spp > 1) e.push(shorts(338, new Array<number>(spp - 1).fill(0)));
    e.push(shorts(339, new Array<number>(spp).fill(spec.float ? 3 : spec.signed ? 2 : 1)));
    if (i === 0) {
      e.push(doubles(33550, [spec.geo.pixelSize, spec.geo.pixelSize, 0]));
      e.push(doubles(33922, [0, 0, 0, spec.geo.originX, spec.geo.originY, 0]));
      e.push(shorts(34735, geoKeys(spec.geo)));
      e.push(ascii(42112, spec.metadataXml));
    }
    e.push(ascii(42113, spec.nodata));
    return e;
  });

  const headerSize = big ? 16 : 8;
  const entrySize = big ? 20 : 12;
  const inlineMax = big ? 8 : 4;
  const countSize = big ? 8 : 2;
  const nextSize = big ? 8 : 4;

  // Pass 1: sizes of each IFD and its out-of-line values.
  let pos = headerSize;
  const ifdPos: number[] = [];
  for (const entries of ifdEntries) {
    ifdPos.push(pos);
    pos += countSize + entries.length * entrySize + nextSize;
    for (const en of entries) {
      const size = TYPE_SIZE[en.type]! * en.count;
      if (size > inlineMax) pos = align(pos, 8) + size;
    }
    pos = align(pos, 8);
  }
  const headerBytes = align(pos, 16);

  // Data: smallest overview first, full resolution last (COG ordering).
  const dataOrder = levels.map((_, i) => i).reverse();
  let dataPos = headerBytes;
  for (const i of dataOrder) {
    const l = levels[i]!;
    l.dataOffset = dataPos;
    dataPos += l.blockBytes * l.blocksAcross * l.blocksDown;
  }
  if (!big && dataPos > 0xffffffff) throw new Error('file too large for classic TIFF');

  // Pass 2: serialise.
  const header = Buffer.alloc(headerBytes);
  const dv = new DataView(header.buffer, header.byteOffset, header.byteLength);
  header.write('II', 0, 'latin1');
  if (big) {
    dv.setUint16(2, 43, true);
    dv.setUint16(4, 8, true);
    dv.setUint16(6, 0, true);
    dv.setBigUint64(8, BigInt(ifdPos[0]!), true);
  } else {
    dv.setUint16(2, 42, true);
    dv.setUint32(4, ifdPos[0]!, true);
  }
  ifdEntries.forEach((entries, k) => {
    entries.sort((a, b) => a.tag - b.tag);
    let at = ifdPos[k]!;
    if (big) dv.setBigUint64(at, BigInt(entries.length), true);
    else dv.setUint16(at, entries.length, true);
    at += countSize;
    let extra = at + entries.length * entrySize + nextSize;
    for (const en of entries) {
      dv.setUint16(at, en.tag, true);
      dv.setUint16(at + 2, en.type, true);
      if (big) dv.setBigUint64(at + 4, BigInt(en.count), true);
      else dv.setUint32(at + 4, en.count, true);
      const valueAt = at + (big ? 12 : 8);
      const size = TYPE_SIZE[en.type]! * en.count;
      if (size <= inlineMax) {
        en.write(dv, valueAt);
      } else {
        extra = align(extra, 8);
        if (big) dv.setBigUint64(valueAt, BigInt(extra), true);
        else dv.setUint32(valueAt, extra, true);
        en.write(dv, extra);
        extra += size;
      }
      at += entrySize;
    }
    const next = k + 1 < ifdPos.length ? ifdPos[k + 1]! : 0;
    if (big) dv.setBigUint64(at, BigInt(next), true);
    else dv.setUint32(at, next, true);
  });

  return { bigTiff: big, header, levels, dataOrder, totalBytes: dataPos };
}
