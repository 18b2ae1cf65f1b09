/** IFD reading from a file's own bytes, with every offset checked against the file's size. */
import { open } from 'node:fs/promises';
import { readExactly } from '../shared/file-io.js';

/**
 * StripOffsets and StripByteCounts of the first image, read from the file's own bytes in its own
 * byte order (classic TIFF and BigTIFF). geotiff.js 3 reads these tables of big-endian files with
 * the wrong byte order (geotiffjs/geotiff.js#535), which would make the copy silently all zeros.
 */
export async function readStripTable(file: string): Promise<{ littleEndian: boolean; offsets: number[]; counts: number[] }> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const read = async (position: number, length: number): Promise<DataView> => {
      if (position < 0 || position + length > size) throw new Error(`${file}: its strip table points beyond the end of the file`);
      const buf = Buffer.alloc(length);
      await readExactly(fh, buf, position);
      return new DataView(buf.buffer, buf.byteOffset, length);
    };
    const head = await read(0, 16);
    const le = head.getUint16(0) === 0x4949;
    const big = head.getUint16(2, le) === 43;
    const ifd = big ? Number(head.getBigUint64(8, le)) : head.getUint32(4, le);
    const entries = big ? Number((await read(ifd, 8)).getBigUint64(0, le)) : (await read(ifd, 2)).getUint16(0, le);
    const entrySize = big ? 20 : 12;
    const table = await read(ifd + (big ? 8 : 2), entries * entrySize);
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
    return { littleEndian: le, offsets: await values(273), counts: await values(279) };
  } finally {
    await fh.close();
  }
}

