/**
 * The team catalog's rows, as untrusted input. The catalog is shared by every analyst and administered by someone
 * else: any row may be hostile (a storage path outside the share, a huge JSON document, a footprint with millions of
 * vertices). So every row read is bounded by the SQL that reads it (sizes measured on the server, a value over its
 * limit never sent: `rowSelect`) and validated here (`parseRow`); a refused row becomes a `RowRefusal` naming the row
 * and the reason, and the other rows still answer. What the app registers is validated the same way first
 * (`parseInput`), so it never writes a row it would refuse to read.
 */
import { z } from 'zod';
import { oneLine } from '../shared/untrusted-text.js';
import { storagePathProblem } from './storage-path.js';
import type { TeamFootprint, TeamRaster, TeamRasterInput } from './types.js';

/** The largest STAC item or request document, in bytes of its JSON text (checked on the server before it is sent). */
export const MAX_JSON_BYTES = 256 * 1024;
/** The most vertices a footprint may have (ST_NPoints, checked on the server). */
export const MAX_FOOTPRINT_POINTS = 10_000;
/** The deepest nesting a JSON document may have (deeper ones break recursive readers). */
export const MAX_JSON_DEPTH = 64;

/** A row the catalog refused to use, and why (for the log and the status line). */
export interface RowRefusal {
  /** The catalog's id of the row. */
  id: string;
  reason: string;
  /** "Team catalog row 42 refused: <reason>." */
  message: string;
}

export function refusal(id: string, reason: string): RowRefusal {
  // The reason may quote the row (a path's segment): shown and logged without its control characters.
  const shown = teammateText(reason, 500);
  return { id, reason: shown, message: `Team catalog row ${id} refused: ${shown}.` };
}

/** Why `value` (parsed JSON) nests deeper than `MAX_JSON_DEPTH`, or null; iterative, so depth itself cannot overflow the stack. */
function jsonDepthProblem(value: unknown): string | null {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return `nested deeper than ${MAX_JSON_DEPTH} levels`;
    for (const child of Object.values(v as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return null;
}

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD').refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'is not a calendar date');
const text = (max: number) => z.string().max(max);
const position = z.array(z.number().finite()).min(2).max(4);
const ring = z.array(position).min(4);

function countPoints(f: TeamFootprint): number {
  const polygons = (f.type === 'Polygon' ? [f.coordinates] : f.coordinates) as number[][][][];
  return polygons.reduce((n, poly) => n + poly.reduce((m, r) => m + r.length, 0), 0);
}

const footprint = z.union([
  z.object({ type: z.literal('Polygon'), coordinates: z.array(ring).min(1) }),
  z.object({ type: z.literal('MultiPolygon'), coordinates: z.array(z.array(ring).min(1)).min(1) }),
]).check((ctx) => {
  const n = countPoints(ctx.value as TeamFootprint);
  if (n > MAX_FOOTPRINT_POINTS) ctx.issues.push({ code: 'custom', input: ctx.value, message: `has ${n} vertices (limit ${MAX_FOOTPRINT_POINTS})` });
});

const jsonDocument = z.record(z.string(), z.unknown()).check((ctx) => {
  const bytes = Buffer.byteLength(JSON.stringify(ctx.value), 'utf8');
  if (bytes > MAX_JSON_BYTES) ctx.issues.push({ code: 'custom', input: ctx.value, message: `is ${bytes} bytes (limit ${MAX_JSON_BYTES})` });
  const deep = jsonDepthProblem(ctx.value);
  if (deep) ctx.issues.push({ code: 'custom', input: ctx.value, message: `is ${deep}` });
});

const storagePath = z.string().check((ctx) => {
  const problem = storagePathProblem(ctx.value);
  if (problem) ctx.issues.push({ code: 'custom', input: ctx.value, message: problem });
});

/** A raster as an app registers it (and as a row must be to be used). */
export const teamRasterInputSchema = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits'),
  size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  kind: z.enum(['composite', 'tile', 'minitile']).nullable(),
  date: isoDate.nullable(),
  model: text(200).nullable(),
  constellations: z.array(text(64)).max(64),
  bands: z.array(text(64)).max(256),
  epsg: z.number().int().min(1).max(999_999).nullable(),
  resolution: z.number().finite().positive().nullable(),
  dataType: text(32).nullable(),
  footprint: footprint.nullable(),
  tileGuid: text(200).nullable(),
  storagePath,
  acquiredBy: z.string().min(1).max(200),
  acquiredAt: z.iso.datetime({ offset: true }),
  costEur: z.number().finite().min(0).max(1e12).nullable(),
  request: jsonDocument.nullable(),
  stac: jsonDocument.nullable(),
});

const rowSchema = teamRasterInputSchema.extend({
  id: z.string().regex(/^\d{1,19}$/),
  registeredAt: z.iso.datetime({ offset: true }),
});

/** The first problem zod found, in words: "storagePath: the storage path leaves the share (..)". */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const where = issue.path.length ? issue.path.join('.') : 'value';
  return `${where}: ${issue.message}`;
}

/** `input` validated for registration: throws a message naming the field and the reason. */
export function parseInput(input: unknown): TeamRasterInput {
  const parsed = teamRasterInputSchema.safeParse(input);
  if (!parsed.success) throw new Error(`The raster cannot be registered: ${firstIssue(parsed.error)}.`);
  return parsed.data as TeamRasterInput;
}

/**
 * The bounded text columns: read only when within their limit (`left()` would hide a wrong value; a refused row is
 * better). [column, field, limit in bytes].
 */
const TEXT_COLUMNS: [string, string, number][] = [
  ['sha256', 'sha256', 64],
  ['kind', 'kind', 16],
  ['model', 'model', 800],
  ['data_type', 'dataType', 128],
  ['tile_guid', 'tileGuid', 800],
  ['storage_path', 'storagePath', 4096],
  ['acquired_by', 'acquiredBy', 800],
];
const ARRAY_COLUMNS: [string, string, number, number][] = [
  ['constellations', 'constellations', 64, 4096],
  ['bands', 'bands', 256, 16_384],
];

/**
 * The select list that reads a row of `swath.rasters r` within bounds: sizes are measured on the server and a value
 * over its limit is sent as NULL with its size in `too_big` (the row is then refused, never used with a gap).
 * Needs `CROSS JOIN LATERAL (${SIZES}) s` in the FROM clause.
 */
export const SIZES = `SELECT octet_length(r.stac::text) AS stac_bytes, octet_length(r.request::text) AS request_bytes, ST_NPoints(r.footprint) AS points`;

export const ROW_SELECT = [
  'r.id::text AS id',
  ...TEXT_COLUMNS.map(([c, f, max]) => `CASE WHEN octet_length(r.${c}) <= ${max} THEN r.${c} END AS "${f}"`),
  ...ARRAY_COLUMNS.map(([c, f, n, bytes]) => `CASE WHEN cardinality(r.${c}) <= ${n} AND octet_length(array_to_string(r.${c}, '')) <= ${bytes} THEN r.${c} END AS "${f}"`),
  'r.size::text AS size',
  `to_char(r.image_date, 'YYYY-MM-DD') AS date`,
  'r.epsg AS epsg',
  'r.resolution AS resolution',
  'r.cost_eur::text AS "costEur"',
  `to_char(r.acquired_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "acquiredAt"`,
  `to_char(r.registered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "registeredAt"`,
  `CASE WHEN s.points <= ${MAX_FOOTPRINT_POINTS} THEN ST_AsGeoJSON(r.footprint, 9) END AS footprint`,
  `CASE WHEN s.stac_bytes <= ${MAX_JSON_BYTES} THEN r.stac::text END AS stac`,
  `CASE WHEN s.request_bytes <= ${MAX_JSON_BYTES} THEN r.request::text END AS request`,
  `array_remove(ARRAY[
    CASE WHEN s.stac_bytes > ${MAX_JSON_BYTES} THEN 'its STAC item is ' || s.stac_bytes || ' bytes (limit ${MAX_JSON_BYTES})' END,
    CASE WHEN s.request_bytes > ${MAX_JSON_BYTES} THEN 'its request is ' || s.request_bytes || ' bytes (limit ${MAX_JSON_BYTES})' END,
    CASE WHEN s.points > ${MAX_FOOTPRINT_POINTS} THEN 'its footprint has ' || s.points || ' vertices (limit ${MAX_FOOTPRINT_POINTS})' END,
    ${TEXT_COLUMNS.map(([c, f, max]) => `CASE WHEN octet_length(r.${c}) > ${max} THEN 'its ${f} is ' || octet_length(r.${c}) || ' bytes (limit ${max})' END`).join(',\n    ')},
    ${ARRAY_COLUMNS.map(([c, f, n, bytes]) => `CASE WHEN cardinality(r.${c}) > ${n} OR octet_length(array_to_string(r.${c}, '')) > ${bytes} THEN 'its ${f} list is too long (' || cardinality(r.${c}) || ' entries)' END`).join(',\n    ')}
  ], NULL) AS too_big`,
].join(',\n  ');

function parseJsonText(value: unknown, field: string): unknown {
  if (value === null) return null;
  try {
    return JSON.parse(String(value)) as unknown;
  } catch {
    throw new Error(`its ${field} is not JSON`);
  }
}

/** A row as `ROW_SELECT` read it: the raster, or the refusal naming the row and the reason. */
export function parseRow(row: Record<string, unknown>): { raster: TeamRaster } | { refused: RowRefusal } {
  const id = typeof row.id === 'string' ? row.id : '?';
  const tooBig = row.too_big as string[] | null;
  if (tooBig?.length) return { refused: refusal(id, tooBig.join('; ')) };
  let candidate: Record<string, unknown>;
  try {
    candidate = {
      ...row,
      size: row.size === null ? null : Number(row.size),
      costEur: row.costEur === null ? null : Number(row.costEur),
      footprint: parseJsonText(row.footprint, 'footprint'),
      stac: parseJsonText(row.stac, 'STAC item'),
      request: parseJsonText(row.request, 'request'),
    };
    delete candidate.too_big;
  } catch (e) {
    return { refused: refusal(id, (e as Error).message) };
  }
  const parsed = rowSchema.safeParse(candidate);
  if (!parsed.success) return { refused: refusal(id, firstIssue(parsed.error)) };
  const raster = parsed.data as TeamRaster;
  // What the app shows or logs of a teammate's row, without control characters (the storage path is refused with them).
  const shown = (t: string | null) => (t === null ? null : teammateText(t));
  return {
    raster: {
      ...raster,
      acquiredBy: teammateText(raster.acquiredBy),
      model: shown(raster.model),
      dataType: shown(raster.dataType),
      tileGuid: shown(raster.tileGuid),
      constellations: raster.constellations.map((c) => teammateText(c)),
      bands: raster.bands.map((b) => teammateText(b)),
    },
  };
}

/** A teammate's text (a name, a note, a field of their row) for display or a log line: one line, control characters escaped, bounded. */
export function teammateText(text: string, max = 200): string {
  return oneLine(text, max);
}
