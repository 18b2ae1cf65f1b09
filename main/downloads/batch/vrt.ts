/**
 * A GDAL VRT over parts that cannot be mosaicked into one GeoTIFF (different CRS or pixel size).
 *
 * A VRT has one CRS: the one most parts use. Parts in it are placed directly (scaled when their
 * pixel size differs); each part in another CRS gets a small warped VRT beside it (what
 * `gdalwarp -of VRT` would write) that reprojects it on the fly, and that is placed instead.
 * Sources are ComplexSources with NODATA, so a warped part's empty corners never hide a neighbour.
 * All paths are relative, so the folder can be moved as a whole.
 */
import path from 'node:path';
import { throwIfAborted } from '../../../common/abort.js';
import { writeFileAtomic } from '../../shared/files.js';
import { projectionFor } from '../../batch-plan/geo.js';
import { mergeDatasetItems, type PartRaster } from './raster-info.js';

/** A part to reference and, for each of its bands, the output band it becomes (null: band i is band i). */
export interface VrtSource {
  raster: PartRaster;
  bandIndices: number[] | null;
}

/** The written VRT and the warped helper VRTs it references. */
export interface VrtResult {
  path: string;
  width: number;
  height: number;
  bands: number;
  epsg: number;
  pixelSize: number;
  /** Helper VRTs written beside parts in another CRS. */
  warped: string[];
}

/** Points sampled along each edge of a foreign part to find its footprint in the VRT's CRS. */
const EDGE_SAMPLES = 64;

function esc(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

function srsXml(epsg: number, tag = 'SRS'): string {
  // EPSG:4326 is latitude-first by definition; the rasters store longitude first.
  const mapping = epsg === 4326 ? '2,1' : '1,2';
  return `<${tag} dataAxisToSRSAxisMapping="${mapping}">EPSG:${epsg}</${tag}>`;
}

function g(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toPrecision(17);
}

function relative(fromFile: string, to: string): string {
  return path.relative(path.dirname(fromFile), to).split(path.sep).join('/');
}

function gdalType(r: PartRaster): string {
  return r.dataType === 'INT16' ? 'Int16' : 'Byte';
}

interface Footprint {
  file: string;
  raster: PartRaster;
  indices: number[];
  /** Source raster size the VRT reads (the warped VRT's for foreign parts). */
  srcWidth: number;
  srcHeight: number;
  /** Position and size in VRT pixels relative to the anchor (may be fractional for scaled parts). */
  x: number;
  y: number;
  w: number;
  h: number;
}

function warpedVrtXml(r: PartRaster, srcRef: string, target: number, gt: number[], width: number, height: number): string {
  const type = gdalType(r);
  const bands = Array.from({ length: r.bands }, (_, i) => i + 1);
  const inv = (t: number[]): number[] => [-t[0]! / t[1]!, 1 / t[1]!, 0, -t[3]! / t[5]!, 0, 1 / t[5]!];
  const srcGt = [r.originX, r.pixelSize, 0, r.originY, 0, -r.pixelSize];
  return [
    `<VRTDataset rasterXSize="${width}" rasterYSize="${height}" subClass="VRTWarpedDataset">`,
    `  ${srsXml(target)}`,
    `  <GeoTransform>${gt.map(g).join(', ')}</GeoTransform>`,
    ...bands.map((b) => `  <VRTRasterBand dataType="${type}" band="${b}" subClass="VRTWarpedRasterBand"><NoDataValue>${r.nodata}</NoDataValue></VRTRasterBand>`),
    '  <BlockXSize>512</BlockXSize>',
    '  <BlockYSize>512</BlockYSize>',
    '  <GDALWarpOptions>',
    '    <WarpMemoryLimit>67108864</WarpMemoryLimit>',
    '    <ResampleAlg>NearestNeighbour</ResampleAlg>',
    `    <WorkingDataType>${type}</WorkingDataType>`,
    '    <Option name="INIT_DEST">NO_DATA</Option>',
    `    <SourceDataset relativeToVRT="1">${esc(srcRef)}</SourceDataset>`,
    '    <Transformer><ApproxTransformer><MaxError>0.125</MaxError><BaseTransformer><GenImgProjTransformer>',
    `      <SrcGeoTransform>${srcGt.map(g).join(',')}</SrcGeoTransform>`,
    `      <SrcInvGeoTransform>${inv(srcGt).map(g).join(',')}</SrcInvGeoTransform>`,
    `      <DstGeoTransform>${gt.map(g).join(',')}</DstGeoTransform>`,
    `      <DstInvGeoTransform>${inv(gt).map(g).join(',')}</DstInvGeoTransform>`,
    `      <ReprojectTransformer><ReprojectionTransformer>${srsXml(r.epsg!, 'SourceSRS')}${srsXml(target, 'TargetSRS')}</ReprojectionTransformer></ReprojectTransformer>`,
    '    </GenImgProjTransformer></BaseTransformer></ApproxTransformer></Transformer>',
    '    <BandList>',
    ...bands.map((b) => `      <BandMapping src="${b}" dst="${b}"><SrcNoDataReal>${r.nodata}</SrcNoDataReal><DstNoDataReal>${r.nodata}</DstNoDataReal></BandMapping>`),
    '    </BandList>',
    '  </GDALWarpOptions>',
    '</VRTDataset>',
    '',
  ].join('\n');
}

/** Bounds in the target CRS of a raster in another CRS, from points sampled along its edges. */
function foreignBounds(r: PartRaster, target: number): { minX: number; minY: number; maxX: number; maxY: number } {
  const from = projectionFor(r.epsg!);
  const to = projectionFor(target);
  if (!from || !to) throw new Error(`cannot reproject ${r.file} from EPSG:${r.epsg} to EPSG:${target} for the VRT`);
  const x0 = r.originX;
  const y0 = r.originY;
  const x1 = x0 + r.width * r.pixelSize;
  const y1 = y0 - r.height * r.pixelSize;
  const b = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  for (let i = 0; i <= EDGE_SAMPLES; i++) {
    const t = i / EDGE_SAMPLES;
    for (const [x, y] of [[x0 + (x1 - x0) * t, y0], [x0 + (x1 - x0) * t, y1], [x0, y0 + (y1 - y0) * t], [x1, y0 + (y1 - y0) * t]] as const) {
      const [lon, lat] = from.inverse(x, y);
      const [X, Y] = to.forward(lon, lat);
      if (!Number.isFinite(X) || !Number.isFinite(Y)) throw new Error(`${r.file} cannot be reprojected to EPSG:${target}`);
      b.minX = Math.min(b.minX, X);
      b.maxX = Math.max(b.maxX, X);
      b.minY = Math.min(b.minY, Y);
      b.maxY = Math.max(b.maxY, Y);
    }
  }
  return b;
}

/** Atomically writes `vrtFile` over the parts (relative paths) in the CRS most of them use, with `<part>.warped.vrt` helpers for the others. */
export async function writeVrt(sources: readonly VrtSource[], vrtFile: string, opts: { signal: AbortSignal }): Promise<VrtResult> {
  throwIfAborted(opts.signal);
  if (sources.length === 0) throw new Error('a VRT needs at least one part');
  for (const s of sources) if (s.raster.epsg === null) throw new Error(`${s.raster.file} has a CRS without an EPSG code`);
  const counts = new Map<number, number>();
  for (const s of sources) counts.set(s.raster.epsg!, (counts.get(s.raster.epsg!) ?? 0) + 1);
  const epsg = [...counts.entries()].reduce((best, e) => (e[1] > best[1] ? e : best))[0];
  const native = sources.filter((s) => s.raster.epsg === epsg);
  const ps = Math.min(...native.map((s) => s.raster.pixelSize));
  const anchor = native.find((s) => s.raster.pixelSize === ps)!.raster;
  const ax = anchor.originX;
  const ay = anchor.originY;

  const warped: string[] = [];
  const prints: Footprint[] = [];
  for (const s of sources) {
    const r = s.raster;
    const indices = s.bandIndices ?? Array.from({ length: r.bands }, (_, i) => i);
    if (indices.length !== r.bands) throw new Error(`${r.file} has ${r.bands} bands but ${indices.length} are mapped`);
    if (r.epsg === epsg) {
      const k = r.pixelSize / ps;
      prints.push({ file: r.file, raster: r, indices, srcWidth: r.width, srcHeight: r.height, x: (r.originX - ax) / ps, y: (ay - r.originY) / ps, w: r.width * k, h: r.height * k });
      continue;
    }
    const b = foreignBounds(r, epsg);
    const c0 = Math.floor((b.minX - ax) / ps);
    const c1 = Math.ceil((b.maxX - ax) / ps);
    const r0 = Math.floor((ay - b.maxY) / ps);
    const r1 = Math.ceil((ay - b.minY) / ps);
    const gt = [ax + c0 * ps, ps, 0, ay - r0 * ps, 0, -ps];
    const helper = r.file.replace(/\.tiff?$/i, '') + '.warped.vrt';
    await writeFileAtomic(helper, warpedVrtXml(r, relative(helper, r.file), epsg, gt, c1 - c0, r1 - r0), { mode: 0o644 });
    warped.push(helper);
    prints.push({ file: helper, raster: r, indices, srcWidth: c1 - c0, srcHeight: r1 - r0, x: c0, y: r0, w: c1 - c0, h: r1 - r0 });
  }
  throwIfAborted(opts.signal);

  const left = Math.floor(Math.min(...prints.map((p) => p.x)) + 1e-9);
  const top = Math.floor(Math.min(...prints.map((p) => p.y)) + 1e-9);
  const width = Math.ceil(Math.max(...prints.map((p) => p.x + p.w)) - left - 1e-9);
  const height = Math.ceil(Math.max(...prints.map((p) => p.y + p.h)) - top - 1e-9);
  const bandCount = Math.max(...prints.flatMap((p) => p.indices)) + 1;
  const ref = sources[0]!.raster;
  const meta = mergeDatasetItems(sources.map((s) => s.raster));

  const lines = [
    `<VRTDataset rasterXSize="${width}" rasterYSize="${height}">`,
    `  ${srsXml(epsg)}`,
    `  <GeoTransform>${[ax + left * ps, ps, 0, ay - top * ps, 0, -ps].map(g).join(', ')}</GeoTransform>`,
  ];
  if (meta.length) {
    lines.push('  <Metadata>', ...meta.map((m) => `    <MDI key="${esc(m.name)}">${esc(m.value)}</MDI>`), '  </Metadata>');
  }
  for (let b = 0; b < bandCount; b++) {
    const users = prints.filter((p) => p.indices.includes(b));
    if (users.length === 0) throw new Error(`no part delivers output band ${b + 1}`);
    const first = users[0]!;
    const local = first.indices.indexOf(b);
    const item = (name: string): string | undefined => first.raster.metadata.find((m) => m.sample === local && m.name === name)?.value;
    lines.push(`  <VRTRasterBand dataType="${gdalType(first.raster)}" band="${b + 1}">`);
    const desc = item('DESCRIPTION');
    if (desc !== undefined) lines.push(`    <Description>${esc(desc)}</Description>`);
    lines.push(`    <NoDataValue>${ref.nodata}</NoDataValue>`);
    const offset = item('OFFSET');
    const scale = item('SCALE');
    if (offset !== undefined) lines.push(`    <Offset>${esc(offset)}</Offset>`);
    if (scale !== undefined) lines.push(`    <Scale>${esc(scale)}</Scale>`);
    for (const p of users) {
      lines.push(
        '    <ComplexSource>',
        `      <SourceFilename relativeToVRT="1">${esc(relative(vrtFile, p.file))}</SourceFilename>`,
        `      <SourceBand>${p.indices.indexOf(b) + 1}</SourceBand>`,
        `      <SrcRect xOff="0" yOff="0" xSize="${p.srcWidth}" ySize="${p.srcHeight}"/>`,
        `      <DstRect xOff="${g(p.x - left)}" yOff="${g(p.y - top)}" xSize="${g(p.w)}" ySize="${g(p.h)}"/>`,
        `      <NODATA>${p.raster.nodata}</NODATA>`,
        '    </ComplexSource>',
      );
    }
    lines.push('  </VRTRasterBand>');
  }
  lines.push('</VRTDataset>', '');
  await writeFileAtomic(vrtFile, lines.join('\n'), { mode: 0o644 });
  return { path: vrtFile, width, height, bands: bandCount, epsg, pixelSize: ps, warped };
}
