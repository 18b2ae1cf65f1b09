import { parseBandnames } from '../../common/bandnames.js';
import { isAbsent, readGeoJson, readWkt, type Polygonal } from '../../common/aoi-text.js';
import type { FieldErrors } from './errors.js';
import {
  CONSTELLATIONS, DATA_TYPES, PIXEL_SELECTION_MODES, RESOLUTIONS, UTM_DATA_SELECTION_MODES, type TaskingModel,
} from './types.js';

/**
 * Client-side checks of the rules the contract states, reported in the service's
 * own property -> reasons shape so the UI shows both alike. They catch mistakes
 * before a round trip; the service stays the authority, so anything the contract
 * leaves open is left to it.
 */

/** Errors block the call; warnings are shown but the request is still sent. */
export interface ValidationResult {
  errors: FieldErrors;
  warnings: FieldErrors;
}

/** What the checks know about the connected service. */
export interface ValidationContext {
  /** The model list of /api/tasking/models, or null when it is not known (model checks are then left to the service). */
  models: TaskingModel[] | null;
}

type Body = Record<string, unknown>;

class Bag {
  readonly errors: FieldErrors = {};
  readonly warnings: FieldErrors = {};

  add(field: string, reason: string): void {
    const list = (this.errors[field] ??= []);
    if (!list.includes(reason)) list.push(reason);
  }

  warn(field: string, reason: string): void {
    (this.warnings[field] ??= []).push(reason);
  }

  result(): ValidationResult {
    return { errors: this.errors, warnings: this.warnings };
  }
}


const GUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_OR_DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Milliseconds of a valid calendar date (date or date-time); null when invalid. */
function dateMs(s: string, dateOnly: boolean): number | null {
  const m = (dateOnly ? DATE_RE : DATE_OR_DATETIME_RE).exec(s.trim());
  if (!m) return null;
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== day) return null;
  if (s.trim().length === 10) return d.getTime();
  const t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(s.trim()) ? s.trim() : `${s.trim().replace(' ', 'T')}Z`);
  return Number.isNaN(t) ? null : t;
}

function checkDate(bag: Bag, body: Body, field: string, opts: { required: boolean; dateOnly: boolean }): number | null {
  const v = body[field];
  if (isAbsent(v)) {
    if (opts.required) bag.add(field, `The ${field} field is required.`);
    return null;
  }
  const form = opts.dateOnly ? 'a date in the form YYYY-MM-DD' : 'a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDTHH:mm:ssZ)';
  if (typeof v !== 'string') {
    bag.add(field, `${field} must be ${form}.`);
    return null;
  }
  const ms = dateMs(v, opts.dateOnly);
  if (ms == null) {
    const shapeOk = (opts.dateOnly ? DATE_RE : DATE_OR_DATETIME_RE).test(v.trim());
    bag.add(field, shapeOk ? `${field} '${v}' is not a valid calendar date.` : `${field} must be ${form}; got '${v}'.`);
  }
  return ms;
}

function checkPeriod(bag: Bag, fromField: string, from: number | null, toField: string, to: number | null): void {
  if (from != null && to != null && from > to) {
    bag.add(fromField, `${fromField} must not be after ${toField}.`);
    bag.add(toField, `${toField} must not be before ${fromField}.`);
  }
}

// ------------------------------------------------------------------ geometry

type Ring = number[][];

function ringProblems(rings: Ring[], label: string): string[] {
  const out: string[] = [];
  rings.forEach((pts, r) => {
    const name = `${label}ring ${r + 1}`;
    if (pts.length < 4) {
      out.push(`${name} has ${pts.length} position(s); a ring needs at least 4 (three corners and the closing repeat of the first).`);
      return;
    }
    const a = pts[0]!;
    const z = pts[pts.length - 1]!;
    if (a[0] !== z[0] || a[1] !== z[1]) out.push(`${name} is not closed: first and last positions differ.`);
    const bad = pts.findIndex((p) => !(Math.abs(p[0]!) <= 180 && Math.abs(p[1]!) <= 90));
    if (bad >= 0) out.push(`${name}, position ${bad + 1} is out of range: longitude must be within [-180, 180] and latitude within [-90, 90] (longitude first).`);
  });
  return out;
}

/** The ring problems of a parsed AOI, or the reason it could not be read. */
function polygonProblems(g: Polygonal | string, labelSingle: boolean): string[] {
  if (typeof g === 'string') return [g];
  if (g.type === 'Polygon') return ringProblems(g.coordinates, '');
  const label = labelSingle || g.coordinates.length > 1;
  return g.coordinates.flatMap((rings, p) => ringProblems(rings, label ? `Polygon ${p + 1}, ` : ''));
}

function wktProblems(v: unknown): string[] {
  if (typeof v !== 'string') return ['Wkt must be a string (WKT POLYGON or MULTIPOLYGON in longitude/latitude).'];
  return polygonProblems(readWkt(v), false);
}

function geoJsonProblems(v: unknown): string[] {
  return polygonProblems(readGeoJson(v), true);
}

function hasPolygon(body: Body): boolean {
  return !isAbsent(body.Wkt) || !isAbsent(body.GeoJson);
}

/** Exactly one of Wkt or GeoJson, each well-formed. */
function checkAoi(bag: Bag, body: Body, required: boolean): void {
  const hasWkt = !isAbsent(body.Wkt);
  const hasGeo = !isAbsent(body.GeoJson);
  if (hasWkt && hasGeo) {
    bag.add('Wkt', 'Provide either Wkt or GeoJson, not both.');
    bag.add('GeoJson', 'Provide either Wkt or GeoJson, not both.');
    return;
  }
  if (!hasWkt && !hasGeo) {
    if (required) {
      bag.add('Wkt', 'Either Wkt or GeoJson is required.');
      bag.add('GeoJson', 'Either Wkt or GeoJson is required.');
    }
    return;
  }
  if (hasWkt) for (const r of wktProblems(body.Wkt)) bag.add('Wkt', r);
  else for (const r of geoJsonProblems(body.GeoJson)) bag.add('GeoJson', r);
}

// ------------------------------------------------------------ scalar fields

function checkGuid(bag: Bag, body: Body, field: string, required: boolean): void {
  const v = body[field];
  if (isAbsent(v)) {
    if (required) bag.add(field, `The ${field} field is required.`);
    return;
  }
  if (typeof v !== 'string' || !GUID_RE.test(v)) bag.add(field, `${field} must be a GUID (e.g. 3f2504e0-4f89-11d3-9a0c-0305e82c3301); got ${JSON.stringify(v)}.`);
}

function checkEnum(bag: Bag, body: Body, field: string, allowed: readonly string[]): void {
  const v = body[field];
  if (v === undefined || v === null) return;
  if (typeof v !== 'string' || !allowed.includes(v)) bag.add(field, `${field} must be one of ${allowed.join(', ')}; got ${JSON.stringify(v)}.`);
}

function checkBoolean(bag: Bag, body: Body, field: string): void {
  const v = body[field];
  if (v !== undefined && v !== null && typeof v !== 'boolean') bag.add(field, `${field} must be true or false; got ${JSON.stringify(v)}.`);
}

function checkInteger(bag: Bag, body: Body, field: string, opts: { required: boolean; min?: number }): void {
  const v = body[field];
  if (v === undefined || v === null) {
    if (opts.required) bag.add(field, `The ${field} field is required.`);
    return;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) bag.add(field, `${field} must be an integer; got ${JSON.stringify(v)}.`);
  else if (opts.min !== undefined && v < opts.min) bag.add(field, `${field} must be at least ${opts.min}; got ${v}.`);
}

/** EPSG codes the contract names; others are allowed ("any EPSG number") but earn a warning. */
export function isContractEpsg(epsg: number): boolean {
  return epsg === 4326 || epsg === 3857 || epsg === 47000 || (epsg >= 32601 && epsg <= 32660) || (epsg >= 32701 && epsg <= 32760);
}

function checkEpsg(bag: Bag, body: Body): void {
  const v = body.EpsgProjection;
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
    bag.add('EpsgProjection', `EpsgProjection must be a positive integer EPSG code (e.g. 4326, 3857, 47000 or a UTM zone such as 32633); got ${JSON.stringify(v)}.`);
    return;
  }
  if (!isContractEpsg(v)) {
    bag.warn('EpsgProjection', `EPSG ${v} is not one the contract names (4326, 3857, 47000, UTM 32601-32660 / 32701-32760); the service decides whether it can render it.`);
  }
}

function checkResolution(bag: Bag, body: Body): void {
  const v = body.Resolution;
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !(RESOLUTIONS as readonly number[]).includes(v)) {
    bag.add('Resolution', `Resolution must be one of ${RESOLUTIONS.join(', ')}; got ${JSON.stringify(v)}.`);
  }
}

function checkBandnames(bag: Bag, body: Body): void {
  const v = body.Bandnames;
  if (v === undefined || v === null) return;
  const r = parseBandnames(v);
  if (!r.ok) bag.add('Bandnames', r.reason);
}

function checkUploadUrl(bag: Bag, body: Body): void {
  const v = body.UploadUrl;
  if (v === undefined || v === null) return;
  let ok = false;
  if (typeof v === 'string') {
    try {
      const u = new URL(v);
      ok = u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      ok = false;
    }
  }
  if (!ok) bag.add('UploadUrl', `UploadUrl must be an absolute http(s) URL or null; got ${JSON.stringify(v)}.`);
}

// --------------------------------------------------------- model / constellations

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Model and SatelliteConstellations against the service's model list. */
function checkModel(bag: Bag, ctx: ValidationContext, body: Body, opts: { modelRequired: boolean; constellationsRequired: boolean }): void {
  const model = body.Model;
  const list = body.SatelliteConstellations;
  if (isAbsent(model)) {
    if (opts.modelRequired) bag.add('Model', 'The Model field is required.');
  } else if (typeof model !== 'string') {
    bag.add('Model', `Model must be a model enum value (a string); got ${JSON.stringify(model)}.`);
  }
  if (list === undefined || list === null) {
    if (opts.constellationsRequired) bag.add('SatelliteConstellations', 'The SatelliteConstellations field is required.');
  } else if (!Array.isArray(list) || !list.every((c) => typeof c === 'string')) {
    bag.add('SatelliteConstellations', 'SatelliteConstellations must be an array of strings.');
    return;
  }
  const models = ctx.models;
  // An empty list says nothing about which models exist; leave the check to the service.
  if (!models || models.length === 0 || typeof model !== 'string' || model.trim() === '') return;
  const def = models.find((m) => m.Model === model);
  if (!def) {
    const hint = models.find((m) => squash(m.Model) === squash(model));
    bag.add('Model', hint
      ? `'${model}' is not a model enum value (display names are not accepted); use '${hint.Model}'.`
      : `Unknown model '${model}'. Valid values: ${models.map((m) => m.Model).join(', ')}.`);
    return;
  }
  if (!Array.isArray(list)) return;
  const known = new Set<string>([...CONSTELLATIONS, ...models.flatMap((m) => m.SupportedSatelliteConstellations.map((c) => c.SatelliteConstellation))]);
  const supported = new Map(def.SupportedSatelliteConstellations.map((c) => [c.SatelliteConstellation, c.Optional]));
  for (const c of list as string[]) {
    if (!known.has(c)) {
      const hint = [...known].find((k) => squash(k) === squash(c));
      bag.add('SatelliteConstellations', hint
        ? `Unknown constellation '${c}'; did you mean '${hint}'?`
        : `Unknown constellation '${c}'. Valid values: ${[...known].join(', ')}.`);
    } else if (!supported.has(c)) {
      bag.add('SatelliteConstellations', `Constellation '${c}' is not supported by model ${def.Model}; it takes ${[...supported.keys()].join(', ')}.`);
    }
  }
  for (const [c, optional] of supported) {
    if (!optional && !(list as string[]).includes(c)) bag.add('SatelliteConstellations', `Model ${def.Model} requires constellation '${c}'.`);
  }
}

/** Output settings shared by composite/available, estimate and process, checked when present. */
function checkCompositeSettings(bag: Bag, body: Body): void {
  checkResolution(bag, body);
  checkEpsg(bag, body);
  checkBandnames(bag, body);
  checkEnum(bag, body, 'UtmDataSelectionMode', UTM_DATA_SELECTION_MODES);
  checkEnum(bag, body, 'PixelSelectionMode', PIXEL_SELECTION_MODES);
  checkEnum(bag, body, 'DataType', DATA_TYPES);
  if (body.FileType !== undefined && body.FileType !== null && (typeof body.FileType !== 'string' || body.FileType.trim() === '')) {
    bag.add('FileType', 'FileType must be a non-empty string such as tif.');
  }
  for (const f of ['UtmGridForcePixelResolutionSize', 'OldPixelSelectionMode', 'AllowPartialImage', 'AutomaticOrderCreation']) checkBoolean(bag, body, f);
  checkUploadUrl(bag, body);
}

function notObject(value: unknown): ValidationResult | null {
  if (value && typeof value === 'object' && !Array.isArray(value)) return null;
  return { errors: { Body: ['The request body must be a JSON object.'] }, warnings: {} };
}

// ----------------------------------------------------------------- operations

/** search/available: AOI, From (required), Until, From <= Until, optional model and constellations. */
export function validateSearchAvailable(body: unknown, ctx: ValidationContext): ValidationResult {
  const bad = notObject(body);
  if (bad) return bad;
  const b = body as Body;
  const bag = new Bag();
  checkAoi(bag, b, true);
  const from = checkDate(bag, b, 'From', { required: true, dateOnly: false });
  const until = checkDate(bag, b, 'Until', { required: false, dateOnly: false });
  checkPeriod(bag, 'From', from, 'Until', until);
  checkModel(bag, ctx, b, { modelRequired: false, constellationsRequired: false });
  return bag.result();
}

/** composite/available: the same rules as the composite it checks (AOI, Date, Model, output settings). */
export function validateCompositeAvailable(body: unknown, ctx: ValidationContext): ValidationResult {
  return validateComposite(body, ctx);
}

/** composite/estimate: one AOI, or one tile / mini-tile GUID. */
export function validateCompositeEstimate(body: unknown, ctx: ValidationContext): ValidationResult {
  const bad = notObject(body);
  if (bad) return bad;
  const b = body as Body;
  const bag = new Bag();
  const tile = !isAbsent(b.TileGuid);
  const mini = !isAbsent(b.MiniTileGuid);
  if (tile && mini) bag.add('TileGuid', 'Give TileGuid or MiniTileGuid, not both.');
  if ((tile || mini) && hasPolygon(b)) bag.add(tile ? 'TileGuid' : 'MiniTileGuid', 'Give either an AOI (Wkt or GeoJson) or a tile GUID, not both.');
  checkGuid(bag, b, 'TileGuid', false);
  checkGuid(bag, b, 'MiniTileGuid', false);
  if (!tile && !mini) checkAoi(bag, b, true);
  else if (hasPolygon(b)) checkAoi(bag, b, false);
  if (!isAbsent(b.Date)) checkDate(bag, b, 'Date', { required: false, dateOnly: false });
  if (!isAbsent(b.Model)) checkModel(bag, ctx, b, { modelRequired: false, constellationsRequired: false });
  checkCompositeSettings(bag, b);
  return bag.result();
}

/** process/composite: AOI, Date, Model and constellations, and every output setting. */
export function validateComposite(body: unknown, ctx: ValidationContext): ValidationResult {
  const bad = notObject(body);
  if (bad) return bad;
  const b = body as Body;
  const bag = new Bag();
  checkAoi(bag, b, true);
  checkDate(bag, b, 'Date', { required: true, dateOnly: false });
  checkModel(bag, ctx, b, { modelRequired: true, constellationsRequired: false });
  checkCompositeSettings(bag, b);
  return bag.result();
}

/** process/tile and process/minitile: the GUID, Date, Model and constellations, UploadUrl. */
export function validateTile(body: unknown, ctx: ValidationContext, mini: boolean): ValidationResult {
  const bad = notObject(body);
  if (bad) return bad;
  const b = body as Body;
  const bag = new Bag();
  checkGuid(bag, b, mini ? 'MiniTileGuid' : 'TileGuid', true);
  checkDate(bag, b, 'Date', { required: true, dateOnly: false });
  checkModel(bag, ctx, b, { modelRequired: true, constellationsRequired: false });
  checkUploadUrl(bag, b);
  return bag.result();
}

function checkGuidList(bag: Bag, body: Body, field: string): void {
  const v = body[field];
  if (v === undefined || v === null) return;
  if (!Array.isArray(v) || v.length === 0) {
    bag.add(field, `${field} must hold at least one GUID.`);
    return;
  }
  const badOnes = v.filter((g) => typeof g !== 'string' || !GUID_RE.test(g));
  if (badOnes.length) bag.add(field, `${field} must hold GUIDs; ${badOnes.map((g) => JSON.stringify(g)).join(', ')} ${badOnes.length > 1 ? 'are' : 'is'} not.`);
  if (new Set(v).size !== v.length) bag.add(field, 'The same GUID is listed twice.');
}

/** Order estimate and create (contract 2.5): one area selector, model, constellations, cadence and period. */
export function validateOrder(body: unknown, ctx: ValidationContext, opts: { create: boolean }): ValidationResult {
  const bad = notObject(body);
  if (bad) return bad;
  const b = body as Body;
  const bag = new Bag();
  const tilesField = b.TileGuids != null ? 'TileGuids' : b.TileGuid != null ? 'TileGuid' : null;
  const minisField = b.MiniTileGuids != null ? 'MiniTileGuids' : b.MiniTileGuid != null ? 'MiniTileGuid' : null;
  const polygonField = !isAbsent(b.Wkt) ? 'Wkt' : !isAbsent(b.GeoJson) ? 'GeoJson' : null;
  const selectors = [polygonField, tilesField, minisField].filter((x): x is string => x !== null);
  if (selectors.length === 0) {
    bag.add('Wkt', 'Give the area as Wkt, GeoJson, TileGuid(s) or MiniTileGuid(s).');
  } else if (selectors.length > 1) {
    for (const f of selectors) bag.add(f, 'Give exactly one of Wkt, GeoJson, TileGuid(s) or MiniTileGuid(s).');
  } else if (polygonField) {
    checkAoi(bag, b, true);
  }
  for (const f of ['TileGuid', 'MiniTileGuid']) checkGuid(bag, b, f, false);
  for (const f of ['TileGuids', 'MiniTileGuids']) checkGuidList(bag, b, f);
  if (b.TileGuid != null && b.TileGuids != null) bag.add('TileGuid', 'Give TileGuid or TileGuids, not both.');
  if (b.MiniTileGuid != null && b.MiniTileGuids != null) bag.add('MiniTileGuid', 'Give MiniTileGuid or MiniTileGuids, not both.');
  checkModel(bag, ctx, b, { modelRequired: true, constellationsRequired: true });
  checkInteger(bag, b, 'StorageMonths', { required: false, min: 0 });
  checkInteger(bag, b, 'ApiRequests', { required: false, min: 0 });
  checkInteger(bag, b, 'ImageFrequency', { required: true, min: 1 });
  checkDate(bag, b, 'ReferenceDate', { required: true, dateOnly: true });
  const from = checkDate(bag, b, 'From', { required: true, dateOnly: true });
  const to = checkDate(bag, b, 'To', { required: false, dateOnly: true });
  checkPeriod(bag, 'From', from, 'To', to);
  if (opts.create) checkBoolean(bag, b, 'TileDeduplication');
  return bag.result();
}

/** Billing month paths: year and month must be integers (their range is the service's call). */
export function validateYearMonth(year: unknown, month: unknown): ValidationResult {
  const bag = new Bag();
  checkInteger(bag, { year }, 'year', { required: true });
  checkInteger(bag, { month }, 'month', { required: true });
  return bag.result();
}

/** The deprecated geography/composite: a WKT geography (the period's fields are checked against the specification). */
export function validateGeographyComposite(body: unknown): ValidationResult {
  const bad = notObject(body);
  if (bad) return bad;
  const b = body as Body;
  const bag = new Bag();
  if (isAbsent(b.Wkt)) bag.add('Wkt', 'The Wkt field is required.');
  else for (const r of wktProblems(b.Wkt)) bag.add('Wkt', r);
  return bag.result();
}
