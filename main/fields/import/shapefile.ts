/**
 * Shapefile reader: the .shp with its .dbf (attributes, required: the id comes from it), .prj (the
 * CRS, required) and optional .cpg (the .dbf's encoding), found next to it whatever their case.
 * Both files are walked here first, against the file sizes and the limits (record lengths, part
 * and point counts, the .dbf's header), so a file whose counts lie is refused before anything is
 * allocated for them (a record of more points than a parcel's limit is skipped unparsed, naming its
 * numPoints); then shpjs parses each record (`parseShp`, without reprojection: the
 * coordinates stay in the .prj's CRS) and the id and name columns (`parseDbf`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseDbf, parseShp } from 'shpjs';
import { parcelCrs } from './crs.js';
import { bytesText, checkFeatureCount, ImportError, type ImportLimits } from './limits.js';
import type { Source, SourceColumn, SourceFeature, SourceLayer } from './source.js';

/** The sibling of `shp` with extension `ext` (any case), or null. */
function sibling(shp: string, ext: string): string | null {
  const dir = path.dirname(shp);
  const base = path.basename(shp, path.extname(shp)).toLowerCase();
  const exact = path.join(dir, path.basename(shp, path.extname(shp)) + ext);
  if (existsSync(exact)) return exact;
  const hit = readdirSync(dir).find((n) => n.toLowerCase() === base + ext);
  return hit ? path.join(dir, hit) : null;
}

function readBounded(file: string, what: string, limits: ImportLimits): Buffer {
  const size = statSync(file).size;
  if (size > limits.maxFileBytes) throw new ImportError(`the ${what} is ${size} bytes, more than the limit of ${bytesText(limits.maxFileBytes)}`);
  return readFileSync(file);
}

/** Shape types of polygons: Polygon, PolygonZ, PolygonM. */
const POLYGON_TYPES = new Set([5, 15, 25]);

/** A record's place, length and shape type, and why it is not parsed (its numPoints past the limit of one parcel). */
interface ShpRecord { offset: number; length: number; type: number; tooMany?: string }

/** Walks the .shp's records, checking every length and count against the file. */
function shpRecords(shp: Buffer, limits: ImportLimits): { type: number; records: ShpRecord[] } {
  if (shp.byteLength < 100) throw new ImportError(`the .shp is ${shp.byteLength} bytes, shorter than its 100-byte header`);
  if (shp.readInt32BE(0) !== 9994) throw new ImportError('the .shp does not start with the shapefile file code 9994');
  const declared = shp.readInt32BE(24) * 2;
  if (declared !== shp.byteLength) throw new ImportError(`the .shp header's file length (${declared} bytes) is not the file's size (${shp.byteLength} bytes)`);
  const type = shp.readInt32LE(32);
  if (!POLYGON_TYPES.has(type)) throw new ImportError(`the .shp holds shape type ${type}, not polygons (5, 15 or 25)`);
  const records: ShpRecord[] = [];
  let at = 100;
  while (at < shp.byteLength) {
    const n = records.length + 1;
    if (at + 8 > shp.byteLength) throw new ImportError(`record ${n} of the .shp: its header runs past the end of the file`);
    const length = shp.readInt32BE(at + 4) * 2;
    if (length < 4 || at + 8 + length > shp.byteLength) {
      throw new ImportError(`record ${n} of the .shp: its content length (${length} bytes) runs past the end of the file (${shp.byteLength - at - 8} bytes left) or is shorter than a shape type`);
    }
    const rtype = shp.readInt32LE(at + 8);
    if (rtype !== 0 && rtype !== type) throw new ImportError(`record ${n} of the .shp: shape type ${rtype} in a file of type ${type}`);
    if (rtype !== 0) {
      if (length < 44) throw new ImportError(`record ${n} of the .shp: its content length (${length} bytes) is shorter than a polygon's header (44 bytes)`);
      const parts = shp.readInt32LE(at + 8 + 36);
      const points = shp.readInt32LE(at + 8 + 40);
      const zm = type === 15 ? 2 : type === 25 ? 1 : 0;
      const need = 44 + 4 * parts + 16 * points + zm * (16 + 8 * points);
      if (parts < 0 || points < 0 || parts > points || 44 + 4 * parts + 16 * points > length) {
        throw new ImportError(`record ${n} of the .shp: numParts ${parts} and numPoints ${points} need ${need} bytes, and the record's content length is ${length}`);
      }
      for (let p = 0; p < parts; p++) {
        const first = shp.readInt32LE(at + 8 + 44 + 4 * p);
        const prev = p === 0 ? -1 : shp.readInt32LE(at + 8 + 44 + 4 * (p - 1));
        if (first < 0 || first >= points || first <= prev || (p === 0 && first !== 0)) {
          throw new ImportError(`record ${n} of the .shp: part ${p + 1} starts at point ${first}, outside 0..${points - 1} or out of order`);
        }
      }
    }
    const points = rtype === 0 ? 0 : shp.readInt32LE(at + 8 + 40);
    records.push({ offset: at, length, type: rtype, ...(points > limits.maxVerticesPerParcel ? { tooMany: `numPoints ${points} of its .shp record, more than the limit of ${limits.maxVerticesPerParcel} points per parcel` } : {}) });
    if (records.length > limits.maxFeatures) throw new ImportError(`the .shp has more than ${limits.maxFeatures} records, past the limit of ${limits.maxFeatures} parcels per set`);
    at += 8 + length;
  }
  return { type, records };
}

interface DbfField { name: string; type: string; offset: number; length: number; decimals: number }

/** The .dbf's header and field descriptors, checked against the file. */
function dbfHeader(dbf: Buffer, limits: ImportLimits): { records: number; headerLength: number; recordLength: number; fields: DbfField[] } {
  if (dbf.byteLength < 33) throw new ImportError(`the .dbf is ${dbf.byteLength} bytes, shorter than its header`);
  const records = dbf.readUInt32LE(4);
  const headerLength = dbf.readUInt16LE(8);
  const recordLength = dbf.readUInt16LE(10);
  checkFeatureCount(records, 'the .dbf (its header\'s record count)', limits);
  if (headerLength < 33 || headerLength > dbf.byteLength) throw new ImportError(`the .dbf header length (${headerLength} bytes) is outside the file (${dbf.byteLength} bytes)`);
  if (headerLength + records * recordLength > dbf.byteLength) {
    throw new ImportError(`the .dbf header declares ${records} records of ${recordLength} bytes, more than the file holds (${dbf.byteLength - headerLength} bytes after its header)`);
  }
  const fields: DbfField[] = [];
  let offset = 1; // the deletion flag
  for (let at = 32; at + 32 <= headerLength && dbf[at] !== 0x0d; at += 32) {
    const raw = dbf.subarray(at, at + 11);
    const end = raw.indexOf(0);
    const name = raw.subarray(0, end < 0 ? 11 : end).toString('latin1').trim();
    const field = { name, type: String.fromCharCode(dbf[at + 11]!), offset, length: dbf[at + 16]!, decimals: dbf[at + 17]! };
    fields.push(field);
    offset += field.length;
    if (fields.length > limits.maxColumns) throw new ImportError(`the .dbf has more than ${limits.maxColumns} fields, past the limit of ${limits.maxColumns} columns`);
  }
  if (offset !== recordLength) throw new ImportError(`the .dbf's fields take ${offset} bytes a record and its header says ${recordLength}`);
  return { records, headerLength, recordLength, fields };
}

const DBF_TYPES: Record<string, string> = { C: 'text', N: 'real', F: 'real', L: 'boolean', D: 'date', M: 'memo', I: 'integer', O: 'real' };

function columnType(f: DbfField): string {
  if (f.type === 'N' && f.decimals === 0) return 'integer';
  return DBF_TYPES[f.type] ?? f.type;
}

/** A .dbf of only `keep`'s fields (their bytes copied record by record), for parseDbf to decode no more than the import reads. */
function narrowDbf(dbf: Buffer, h: ReturnType<typeof dbfHeader>, keep: DbfField[]): Buffer {
  const recordLength = 1 + keep.reduce((s, f) => s + f.length, 0);
  const headerLength = 32 + 32 * keep.length + 1;
  const out = Buffer.alloc(headerLength + h.records * recordLength + 1);
  dbf.copy(out, 0, 0, 32);
  out.writeUInt32LE(h.records, 4);
  out.writeUInt16LE(headerLength, 8);
  out.writeUInt16LE(recordLength, 10);
  keep.forEach((f, i) => {
    const src = 32 + 32 * h.fields.indexOf(f);
    dbf.copy(out, 32 + 32 * i, src, src + 32);
  });
  out[headerLength - 1] = 0x0d;
  for (let r = 0; r < h.records; r++) {
    const from = h.headerLength + r * h.recordLength;
    let to = headerLength + r * recordLength;
    out[to++] = dbf[from]!;
    for (const f of keep) {
      dbf.copy(out, to, from + f.offset, from + f.offset + f.length);
      to += f.length;
    }
  }
  out[out.length - 1] = 0x1a;
  return out;
}

/** Encodings of the .dbf's language driver id (byte 29), read when there is no .cpg (GDAL writes 87, ISO-8859-1, by default). */
const LANGUAGE_DRIVERS: Record<number, string> = {
  0x03: 'windows-1252', 0x57: 'iso-8859-1', 0x13: 'shift_jis', 0x4d: 'gbk', 0x4e: 'euc-kr', 0x4f: 'big5',
  0xc8: 'windows-1250', 0xc9: 'windows-1251', 0xca: 'windows-1254', 0xcb: 'windows-1253',
};

export function openShapefile(file: string, limits: ImportLimits): Source {
  const shp = readBounded(file, '.shp', limits);
  const { records } = shpRecords(shp, limits);
  const dbfFile = sibling(file, '.dbf');
  if (!dbfFile) throw new ImportError(`the .dbf next to ${path.basename(file)} is missing: a shapefile's ids come from its .dbf`);
  const dbf = readBounded(dbfFile, '.dbf', limits);
  const h = dbfHeader(dbf, limits);
  if (h.records !== records.length) throw new ImportError(`the .shp has ${records.length} records and the .dbf ${h.records}: they must pair one to one`);
  const prjFile = sibling(file, '.prj');
  const cpgFile = sibling(file, '.cpg');
  const cpg = (cpgFile && statSync(cpgFile).size < 1000 ? readFileSync(cpgFile, 'latin1').trim() : undefined) || LANGUAGE_DRIVERS[dbf[29]!];
  let crs: SourceLayer['crs'] = null;
  let crsProblem: string | undefined;
  if (!prjFile) crsProblem = `the .prj next to ${path.basename(file)} is missing: without it the shapefile's CRS is unknown`;
  else if (statSync(prjFile).size > 100_000) crsProblem = 'the .prj is larger than 100,000 bytes';
  else {
    try {
      crs = parcelCrs({ epsg: null, wkt: readFileSync(prjFile, 'utf8') }, 'the .prj file');
    } catch (e) {
      crsProblem = (e as Error).message;
    }
  }
  const columns: SourceColumn[] = h.fields.map((f) => ({ name: f.name, type: columnType(f) }));
  const layer: SourceLayer = { name: path.basename(file, path.extname(file)), count: records.length, columns, crs, ...(crsProblem ? { crsProblem } : {}) };
  const header = shp.subarray(0, 100);
  return {
    format: 'shp',
    layers: () => [layer],
    *features(_layer, c): Iterable<SourceFeature> {
      const keep = [c.id, c.name].filter((n): n is string => n != null).map((n) => h.fields.find((f) => f.name === n)!);
      const rows = parseDbf(narrowDbf(dbf, h, [...new Set(keep)]), cpg);
      for (let i = 0; i < records.length; i++) {
        const r = records[i]!;
        const attrs = rows[i] ?? {};
        const deleted = dbf[h.headerLength + i * h.recordLength] === 0x2a;
        const base = { row: i + 1, id: attrs[c.id], name: c.name ? attrs[c.name] : null };
        if (deleted) { yield { ...base, geometry: null, unreadable: 'the record is marked deleted in the .dbf' }; continue; }
        if (r.type === 0) { yield { ...base, geometry: null }; continue; }
        if (r.tooMany) { yield { ...base, geometry: null, unreadable: r.tooMany }; continue; }
        // One record behind the file's header: shpjs parses it alone.
        const one = Buffer.alloc(100 + 8 + r.length);
        header.copy(one, 0);
        one.writeInt32BE((100 + 8 + r.length) / 2, 24);
        shp.copy(one, 100, r.offset, r.offset + 8 + r.length);
        try {
          yield { ...base, geometry: parseShp(one)[0] ?? null };
        } catch (e) {
          yield { ...base, geometry: null, unreadable: `malformed record (${(e as Error).message})` };
        }
      }
    },
    close() {},
  };
}
