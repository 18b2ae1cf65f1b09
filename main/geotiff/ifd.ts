/** IFD reading from a file's own bytes, with every offset checked against the file's size. */
import { MAX_IMAGES } from './limits.js';
import { TiffFile, type TiffBytes } from './tiff-file.js';

const STRIP_OFFSETS = 273;
const STRIP_BYTE_COUNTS = 279;
const TILE_OFFSETS = 324;
const TILE_BYTE_COUNTS = 325;

/** Runs `use` on `file`'s bytes: those the caller has open already, else the file opened once (see {@link TiffFile}) and closed after. */
async function withTiffBytes<T>(file: string, given: TiffBytes | undefined, use: (bytes: TiffBytes) => Promise<T>): Promise<T> {
  if (given) return use(given);
  const tiff = await TiffFile.open(file);
  try {
    return await use(tiff);
  } finally {
    await tiff.close();
  }
}

/** A classic or Big TIFF for raw IFD reads. */
async function rawTiff(bytes: TiffBytes, file: string) {
  const size = bytes.size;
  const read = bytes.read.bind(bytes);
  const head = await read(0, 16);
  const le = head.getUint16(0) === 0x4949;
  const big = head.getUint16(2, le) === 43;
  const first = big ? Number(head.getBigUint64(8, le)) : head.getUint32(4, le);
  /** The entries of the IFD at `ifd`: a value reader by tag, and the next IFD's offset (0: none). */
  const ifdAt = async (ifd: number) => {
    const entries = big ? Number((await read(ifd, 8)).getBigUint64(0, le)) : (await read(ifd, 2)).getUint16(0, le);
    const entrySize = big ? 20 : 12;
    const tableAt = ifd + (big ? 8 : 2);
    const table = await read(tableAt, entries * entrySize + (big ? 8 : 4));
    const nextAt = entries * entrySize;
    const next = big ? Number(table.getBigUint64(nextAt, le)) : table.getUint32(nextAt, le);
    const has = (tag: number): boolean => {
      for (let i = 0; i < entries; i++) if (table.getUint16(i * entrySize, le) === tag) return true;
      return false;
    };
    const values = async (tag: number): Promise<number[]> => {
      for (let i = 0; i < entries; i++) {
        const at = i * entrySize;
        if (table.getUint16(at, le) !== tag) continue;
        const type = table.getUint16(at + 2, le);
        const count = big ? Number(table.getBigUint64(at + 4, le)) : table.getUint32(at + 4, le);
        const width = type === 3 ? 2 : type === 4 ? 4 : type === 16 ? 8 : 0;
        if (!width) throw new Error(`${file}: unexpected type ${type} of TIFF tag ${tag}`);
        const inline = count * width <= (big ? 8 : 4);
        const data = inline ? new DataView(table.buffer, table.byteOffset + at + (big ? 12 : 8), count * width)
          : await read(big ? Number(table.getBigUint64(at + 12, le)) : table.getUint32(at + 8, le), count * width);
        return Array.from({ length: count }, (_, k) => (width === 2 ? data.getUint16(k * 2, le) : width === 4 ? data.getUint32(k * 4, le) : Number(data.getBigUint64(k * 8, le))));
      }
      throw new Error(`${file}: TIFF tag ${tag} is missing`);
    };
    return { has, values, next };
  };
  return { size, le, first, ifdAt };
}

/**
 * StripOffsets and StripByteCounts of the first image, read from the file's own bytes in its own
 * byte order (classic TIFF and BigTIFF). geotiff.js 3 reads these tables of big-endian files with
 * the wrong byte order (geotiffjs/geotiff.js#535), which would make the copy silently all zeros.
 */
export async function readStripTable(file: string): Promise<{ littleEndian: boolean; offsets: number[]; counts: number[] }> {
  return withTiffBytes(file, undefined, async (bytes) => {
    const t = await rawTiff(bytes, file);
    const ifd = await t.ifdAt(t.first);
    return { littleEndian: t.le, offsets: await ifd.values(STRIP_OFFSETS), counts: await ifd.values(STRIP_BYTE_COUNTS) };
  });
}

/**
 * Refuses a file whose strips or tiles (of any of its first `images` images) are stored past its
 * end: a truncated download or a hostile file would otherwise fail later, in the middle of a
 * preview, or make a reader seek into nothing. Run after the header checks (block counts bounded).
 * `bytes`: the file's bytes, when the caller has it open already (see {@link TiffFile}).
 */
export async function checkBlocksInFile(file: string, images: number, bytes?: TiffBytes): Promise<void> {
  await withTiffBytes(file, bytes, async (bytes) => {
    const t = await rawTiff(bytes, file);
    let at = t.first;
    for (let image = 0; image < Math.min(images, MAX_IMAGES) && at; image++) {
      const ifd = await t.ifdAt(at);
      const tiled = ifd.has(TILE_OFFSETS);
      const offsets = await ifd.values(tiled ? TILE_OFFSETS : STRIP_OFFSETS);
      const counts = await ifd.values(tiled ? TILE_BYTE_COUNTS : STRIP_BYTE_COUNTS);
      const kind = tiled ? 'tile' : 'strip';
      if (offsets.length !== counts.length) {
        throw new Error(`image ${image + 1} lists ${offsets.length} ${kind} offsets but ${counts.length} byte counts`);
      }
      for (let i = 0; i < offsets.length; i++) {
        if (offsets[i]! + counts[i]! > t.size) {
          throw new Error(`${kind} ${i} of image ${image + 1} (offset ${offsets[i]}, ${counts[i]} bytes) lies past the end of the file (${t.size} bytes): the file is truncated or corrupt`);
        }
      }
      at = ifd.next;
    }
  });
}

/**
 * Whether `file` has the layout of a Cloud Optimized GeoTIFF, by the layout rules of GDAL's
 * validate_cloud_optimized_geotiff.py (its errors, not its warnings): no image stored as strips
 * wider than 1024 px; the IFDs in order (full resolution, then each smaller overview); the
 * smallest overview's first block after the last IFD, each larger level's first block after the
 * one of the level below, full resolution's last. (Its checks of a GDAL ghost area and block
 * leaders concern files that declare them; Swath's writer declares neither.)
 * `bytes`: the file's bytes, when the caller has it open already (see {@link TiffFile}).
 */
export async function isCloudOptimizedLayout(file: string, bytes?: TiffBytes): Promise<boolean> {
  return withTiffBytes(file, bytes, async (bytes) => {
    const t = await rawTiff(bytes, file);
    const ifds: number[] = [];
    const firsts: number[] = [];
    let at = t.first;
    for (let image = 0; image < MAX_IMAGES && at; image++) {
      const ifd = await t.ifdAt(at);
      const tiled = ifd.has(TILE_OFFSETS);
      const [width] = await ifd.values(256);
      if (!tiled && width! > 1024) return false;
      const first = (await ifd.values(tiled ? TILE_OFFSETS : STRIP_OFFSETS)).find((o) => o > 0);
      ifds.push(at);
      firsts.push(first ?? 0);
      at = ifd.next;
    }
    for (let i = 1; i < ifds.length; i++) if (ifds[i]! < ifds[i - 1]!) return false;
    if (firsts.at(-1)! !== 0 && firsts.at(-1)! < ifds.at(-1)!) return false;
    for (let i = firsts.length - 2; i >= 0; i--) if (firsts[i] !== 0 && firsts[i]! < firsts[i + 1]!) return false;
    return true;
  });
}
