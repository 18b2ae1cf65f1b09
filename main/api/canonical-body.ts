import { ApiError } from './errors.js';

/**
 * The bodies of the operations that cost money, in the one spelling main prices and sends.
 *
 * The service binds JSON field names in any case (as ASP.NET does), so `automaticOrderCreation`
 * is AutomaticOrderCreation to it, and of `Wkt` and `wkt` in one body it reads one, whichever its
 * binder takes. Main's checks, its estimates and the team's matching read fields by their exact
 * names. So every body main sends for a paid operation is rebuilt first from the fields the
 * contract lists for it, each in the contract's spelling (which is also how the service's
 * specification spells them): a field given in another case is renamed, a field the contract does
 * not list is refused, and so are two fields (or two GeoJSON members) that differ only by case.
 * What is priced is then exactly what is sent. The channels rebuild what a page gives
 * ({@link canonicalBody}) before validation, the estimate, the team's check and the send; what
 * main itself holds and sends (a stored job, a watch's date, a batch part, an order payload) must
 * already be canonical ({@link requireCanonical}), checked again by the client on every send.
 *
 * Paid operations: process/composite, process/tile, process/minitile, the composite/estimate that
 * prices them, and orders/estimate and orders (create). `service:call` reaches none of them (its
 * operations are the specification-built ones: vouchers, products, plans, tile search, the order
 * list, details and cancel).
 */

/** A paid operation's body (see the module comment). */
export type PaidBodyKind = 'composite' | 'tile' | 'minitile' | 'estimate' | 'order';

/** Contract 4.3.1: the composite process body. */
const COMPOSITE = [
  'Wkt', 'GeoJson', 'Date', 'Resolution', 'EpsgProjection', 'FileType', 'PixelSelectionMode', 'DataType',
  'UtmDataSelectionMode', 'UtmGridForcePixelResolutionSize', 'SatelliteConstellations', 'Model', 'Bandnames',
  'OldPixelSelectionMode', 'AllowPartialImage', 'AutomaticOrderCreation', 'UploadUrl',
] as const;

/** Contract 4.3.2: the tile and mini-tile process bodies, beside their GUID. */
const TILE_COMMON = ['Date', 'SatelliteConstellations', 'Model', 'Level', 'Harmonize', 'ClipReflectance', 'UploadUrl'] as const;

/**
 * The known fields of each paid body, in their canonical spelling. composite/estimate takes Wkt,
 * GeoJson, MiniTileGuid and TileGuid (contract 4.3) and the composite's own settings beside them
 * (the contract's recommended calls send the same settings to estimate and process). An order is
 * the record of contract 2.5, with the list forms of the tile selection the service also reads;
 * TileDeduplication is create's own option, never part of the estimated payload.
 */
export const PAID_BODY_FIELDS: Readonly<Record<PaidBodyKind, readonly string[]>> = {
  composite: COMPOSITE,
  tile: ['TileGuid', ...TILE_COMMON],
  minitile: ['MiniTileGuid', ...TILE_COMMON],
  estimate: [...COMPOSITE, 'TileGuid', 'MiniTileGuid'],
  order: [
    'Wkt', 'GeoJson', 'TileGuid', 'MiniTileGuid', 'TileGuids', 'MiniTileGuids', 'SatelliteConstellations', 'Model',
    'StorageMonths', 'ApiRequests', 'ImageFrequency', 'ReferenceDate', 'From', 'To',
  ],
};

const NAMES: Record<PaidBodyKind, string> = {
  composite: 'composite request', tile: 'tile request', minitile: 'mini-tile request', estimate: 'estimate request', order: 'order request',
};

const byLowerCase = Object.fromEntries(
  (Object.entries(PAID_BODY_FIELDS) as [PaidBodyKind, readonly string[]][]).map(([k, fields]) => [k, new Map(fields.map((f) => [f.toLowerCase(), f]))]),
) as Record<PaidBodyKind, Map<string, string>>;

/** Deepest GeoJSON nesting whose member names are checked (a GeometryCollection in a collection is already refused by the service). */
const MAX_GEOJSON_DEPTH = 8;

function refuse(kind: PaidBodyKind, field: string, reason: string): never {
  throw new ApiError('validation', `This ${NAMES[kind]} was not sent: ${field}: ${reason}`, { fields: { [field]: [reason] } });
}

/** Refuses two members of a GeoJSON object (or of the geometries of a collection) that differ only by case. */
function checkGeoJsonMembers(kind: PaidBodyKind, field: string, value: unknown, depth: number): void {
  if (!value || typeof value !== 'object' || Array.isArray(value) || depth > MAX_GEOJSON_DEPTH) return;
  const seen = new Map<string, string>();
  for (const [name, member] of Object.entries(value as Record<string, unknown>)) {
    const lower = name.toLowerCase();
    const other = seen.get(lower);
    if (other !== undefined) {
      refuse(kind, field, `its members "${other}" and "${name}" differ only by case; the service reads them as one, so give it once.`);
    }
    seen.set(lower, name);
    if (lower === 'geometries' && Array.isArray(member)) for (const g of member) checkGeoJsonMembers(kind, field, g, depth + 1);
  }
}

/**
 * The body rebuilt from the known fields of `kind` in their canonical spelling, in the order they
 * were given, each value as it was. Refuses (a validation ApiError naming the field and the
 * reason) a body that is not an object, a field the contract does not list for `kind`, and two
 * fields (or two GeoJSON members) that differ only by case.
 */
export function canonicalBody(kind: PaidBodyKind, body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) refuse(kind, 'Body', 'the request body must be a JSON object.');
  const known = byLowerCase[kind];
  const given = new Map<string, string>();
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    const canonical = known.get(name.toLowerCase());
    if (canonical === undefined) {
      if (kind === 'order' && name.toLowerCase() === 'tilededuplication') {
        refuse(kind, name, 'is an option of creating the order (tileDeduplication beside the payload), not a field of the estimated payload.');
      }
      refuse(kind, name, `is not a field of a ${NAMES[kind]}; the fields are ${PAID_BODY_FIELDS[kind].join(', ')}.`);
    }
    const other = given.get(canonical);
    if (other !== undefined) {
      refuse(kind, name, `"${other}" and "${name}" differ only by case; the service reads them as one field (${canonical}), so give it once.`);
    }
    given.set(canonical, name);
    if (canonical === 'GeoJson') checkGeoJsonMembers(kind, name, value, 0);
    out[canonical] = value;
  }
  return out;
}

/**
 * An order payload (JSON text) rebuilt as {@link canonicalBody} does, as the text main estimates
 * and creates: the JSON of the rebuilt record, so what the service is sent is what main read.
 */
export function canonicalPayload(payload: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch (e) {
    refuse('order', 'Body', `the payload is not valid JSON: ${(e as Error).message}`);
  }
  return JSON.stringify(canonicalBody('order', parsed));
}

/**
 * Refuses a body main holds that is not already canonical for `kind` (a field in another case
 * too): what was priced must be what is sent, so nothing is renamed on the way out.
 */
export function requireCanonical(kind: PaidBodyKind, body: unknown): void {
  canonicalBody(kind, body);
  for (const name of Object.keys(body as Record<string, unknown>)) {
    if (!PAID_BODY_FIELDS[kind].includes(name)) {
      refuse(kind, name, `is spelled as the contract does not (${byLowerCase[kind].get(name.toLowerCase())}); main sends only the canonical spelling it priced.`);
    }
  }
}
