/**
 * What the mosaic and the VRT need to know about a downloaded part: size, pixel type, nodata,
 * georeferencing and the GDAL metadata items (band descriptions, scale/offset, image tags).
 */
import { fromFile } from 'geotiff';
import { abortError } from '../../shared/abort.js';
import { epsgOfGeoKeys, isGeographic } from '../../shared/geokeys.js';
import type { CogDataType } from './cog-writer.js';

/** One `<Item>` of a GDAL_METADATA tag; sample is the 0-based band for per-band items. */
export interface GdalMetadataItem {
  name: string;
  value: string;
  sample: number | null;
  role: string | null;
}

/** Header facts of a single-image GeoTIFF with square, north-up pixels. */
export interface PartRaster {
  file: string;
  width: number;
  height: number;
  bands: number;
  dataType: CogDataType;
  nodata: number;
  /** EPSG of the CRS, or null when the file uses a user-defined one. */
  epsg: number | null;
  geographic: boolean;
  originX: number;
  originY: number;
  /** Pixel width in CRS units (height is the same, pointing down). */
  pixelSize: number;
  metadata: GdalMetadataItem[];
}

function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (_, e: string) => {
    if (e === 'lt') return '<';
    if (e === 'gt') return '>';
    if (e === 'amp') return '&';
    if (e === 'quot') return '"';
    if (e === 'apos') return "'";
    return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

/** TIFF ASCII is 7-bit, so anything else is written as a character reference. */
export function escapeXml(s: string): string {
  return s.replace(/[<>&"']|[^\x20-\x7e]/g, (ch) => `&#${ch.codePointAt(0)};`);
}

/** Items of a GDAL_METADATA XML document. */
export function parseGdalMetadata(xml: string): GdalMetadataItem[] {
  const items: GdalMetadataItem[] = [];
  const re = /<Item\b([^>]*)>([\s\S]*?)<\/Item>/g;
  for (let m = re.exec(xml); m; m = re.exec(xml)) {
    const attrs = new Map<string, string>();
    for (const a of m[1]!.matchAll(/(\w+)\s*=\s*"([^"]*)"/g)) attrs.set(a[1]!, unescapeXml(a[2]!));
    const name = attrs.get('name');
    if (!name) continue;
    const sample = attrs.get('sample');
    items.push({ name, value: unescapeXml(m[2]!), sample: sample === undefined ? null : Number(sample), role: attrs.get('role') ?? null });
  }
  return items;
}

/** A GDAL_METADATA XML document of items. */
export function gdalMetadataXml(items: readonly GdalMetadataItem[]): string {
  const lines = items.map((it) => {
    const sample = it.sample === null ? '' : ` sample="${it.sample}"`;
    const role = it.role === null ? '' : ` role="${escapeXml(it.role)}"`;
    return `  <Item name="${escapeXml(it.name)}"${sample}${role}>${escapeXml(it.value)}</Item>`;
  });
  return `<GDALMetadata>\n${lines.join('\n')}\n</GDALMetadata>\n`;
}

/** Reads the header of a part file; rejects files the batch cannot combine (not INT16/UINT8, rotated, no georeferencing). */
export async function readPartRaster(file: string, signal: AbortSignal): Promise<PartRaster> {
  const tiff = await fromFile(file, signal);
  try {
    const img = await tiff.getImage(0);
    const bands = img.getSamplesPerPixel();
    const bits = img.getBitsPerSample();
    const format = img.getSampleFormat();
    let dataType: CogDataType;
    if (bits === 16 && format === 2) dataType = 'INT16';
    else if (bits === 8 && format === 1) dataType = 'UINT8';
    else throw new Error(`${file}: ${bits}-bit samples of format ${format} are not a service data type (INT16 or UINT8)`);
    const keys = img.getGeoKeys() as Record<string, unknown> | null;
    if (!keys) throw new Error(`${file} has no GeoTIFF georeferencing`);
    const geographic = isGeographic(keys);
    const [originX, originY] = img.getOrigin() as [number, number];
    const [sx, sy] = img.getResolution() as [number, number];
    if (!(sx > 0) || Math.abs(Math.abs(sy) - sx) > sx * 1e-9 || !(sy < 0)) {
      throw new Error(`${file} does not have square north-up pixels (${sx} x ${sy})`);
    }
    const dir = img.getFileDirectory();
    const xml = dir.hasTag('GDAL_METADATA') ? String((await dir.loadValue('GDAL_METADATA')) ?? '') : '';
    const nodata = img.getGDALNoData();
    return {
      file,
      width: img.getWidth(),
      height: img.getHeight(),
      bands,
      dataType,
      nodata: nodata ?? (dataType === 'INT16' ? -32768 : 0),
      epsg: epsgOfGeoKeys(keys),
      geographic,
      originX,
      originY,
      pixelSize: sx,
      metadata: parseGdalMetadata(xml),
    };
  } catch (e) {
    if (signal.aborted) throw abortError(signal);
    throw e;
  } finally {
    await tiff.close();
  }
}

/** Dataset-level items (no sample) of several parts: equal values once, differing values joined with ", " in part order. */
export function mergeDatasetItems(parts: readonly PartRaster[]): GdalMetadataItem[] {
  const order: string[] = [];
  const values = new Map<string, string[]>();
  for (const p of parts) {
    for (const it of p.metadata) {
      if (it.sample !== null) continue;
      const key = `${it.name}\u0000${it.role ?? ''}`;
      if (!values.has(key)) {
        values.set(key, []);
        order.push(key);
      }
      const list = values.get(key)!;
      if (!list.includes(it.value)) list.push(it.value);
    }
  }
  return order.map((key) => {
    const [name, role] = key.split('\u0000') as [string, string];
    return { name, value: values.get(key)!.join(', '), sample: null, role: role === '' ? null : role };
  });
}

/** Per-band items of band `local` of a part, renumbered as output band `target`. */
export function bandItems(part: PartRaster, local: number, target: number): GdalMetadataItem[] {
  return part.metadata.filter((it) => it.sample === local).map((it) => ({ ...it, sample: target }));
}
