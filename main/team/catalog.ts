/**
 * The team catalog: PostgreSQL with PostGIS, shared by an organisation's analysts. One `TeamCatalog` per role (the
 * analyst's, or an admin's for the migrations) over a small `pg.Pool`; parameterised SQL only. Every call keeps
 * `status()` up to date for the status line (online, or unreachable since when and why). Rows are untrusted: see
 * rows.ts. Errors are `AppError`s whose messages never hold the password (it is also scrubbed from whatever the server
 * or the driver said).
 */
import pg from 'pg';
import { abortable, sleep, throwIfAborted } from '../../common/abort.js';
import { AppError, type ErrorKind } from '../../common/errors.js';
import { isoNow, systemClock, type Clock } from '../platform/clock.js';
import { connectionConfig, type CatalogConnectOptions, type CatalogCredentials } from './connection.js';
import { BOOTSTRAP_SQL, MIGRATIONS, MIGRATION_LOCK_KEY, SCHEMA_VERSION } from './migrations.js';
import { MAX_FOOTPRINT_POINTS, parseInput, parseRow, refusal, ROW_SELECT, SIZES, type RowRefusal } from './rows.js';
import type { OwnedMatch, OwnershipQuery, PurchaseClaim, TeamRaster, TeamRasterInput, TeamStatus } from './types.js';

export type { RowRefusal } from './rows.js';
export { SCHEMA_VERSION } from './migrations.js';

/** The most rows one ownership check returns. */
const MAX_MATCHES = 20;
/** The largest page of `list`. */
const MAX_PAGE = 500;
/** The largest area of an ownership check, in characters of WKT. */
const MAX_AOI_WKT = 1_000_000;

export interface TeamCatalogOptions extends CatalogConnectOptions {
  /** Each refused row, once per read that met it (for the log). */
  onRefused?: (refusal: RowRefusal) => void;
  /** Each change of `status()`'s state (online, unreachable). */
  onStatus?: (status: TeamStatus) => void;
  /** The app's clock; the system clock by default. */
  clock?: Clock;
}

export interface MigrationResult {
  from: number;
  to: number;
  /** "1: rasters (PostGIS layer), …" for each step applied; empty when there was nothing to do. */
  applied: string[];
}

/** The ownership check's answer with the rows it refused. */
export interface OwnershipAnswer {
  matches: OwnedMatch[];
  refused: RowRefusal[];
}

export interface CatalogPage {
  rasters: TeamRaster[];
  refused: RowRefusal[];
  /** Pass as `after` for the next page; null on the last. */
  next: string | null;
}

/** A failure of the team catalog; `unreachable` when the server could not be reached or refused the login. */
export class TeamCatalogError extends AppError<ErrorKind> {
  readonly unreachable: boolean;
  constructor(kind: ErrorKind, message: string, unreachable: boolean) {
    super(kind, message);
    this.name = 'TeamCatalogError';
    this.unreachable = unreachable;
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED']);
const TLS_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/;

export class TeamCatalog {
  readonly where: string;
  private readonly pool: pg.Pool;
  private readonly password: string;
  private readonly options: TeamCatalogOptions;
  private current: TeamStatus = { state: 'off' };
  private schemaChecked: Promise<void> | null = null;

  constructor(url: string, credentials: CatalogCredentials, options: TeamCatalogOptions = {}) {
    const { config, where, password } = connectionConfig(url, credentials, options);
    this.where = where;
    this.password = password;
    this.options = options;
    this.pool = new pg.Pool(config);
    // An idle connection the server dropped (restart, network): without a listener it would crash main.
    this.pool.on('error', (e) => this.markUnreachable(this.describe(e)));
  }

  /** Online, or unreachable since when and why; `off` until the first call answers. */
  status(): TeamStatus {
    return this.current;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Connects, checks the schema version; throws when the catalog cannot be used. */
  async check(signal?: AbortSignal): Promise<void> {
    await this.run(signal, async () => {
      this.schemaChecked = null;
      await this.ensureSchema();
    });
  }

  /**
   * Applies the migrations this app knows that the catalog lacks, in one transaction under an advisory lock (run with
   * an admin role: the tables belong to it). A second run finds nothing to do. Refuses a catalog newer than this app.
   */
  async migrate(signal?: AbortSignal): Promise<MigrationResult> {
    return this.run(signal, async () => {
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
        await client.query(BOOTSTRAP_SQL);
        const from = await readVersion(client);
        if (from > SCHEMA_VERSION) throw newerSchema(from);
        const applied: string[] = [];
        for (const m of MIGRATIONS) {
          if (m.version <= from) continue;
          await client.query(m.sql);
          await client.query('INSERT INTO swath.swath_schema (version, description) VALUES ($1, $2)', [m.version, m.description]);
          applied.push(`${m.version}: ${m.description}`);
        }
        await client.query('COMMIT');
        this.schemaChecked = Promise.resolve();
        return { from, to: Math.max(from, SCHEMA_VERSION), applied };
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    });
  }

  /** Registers a raster copied into the shared store; idempotent by (sha256, storage path): a second call returns the same row. */
  async register(input: TeamRasterInput, signal?: AbortSignal): Promise<{ raster: TeamRaster; created: boolean }> {
    const r = parseInput(input);
    return this.run(signal, async () => {
      await this.ensureSchema();
      const values = [
        r.sha256, r.size, r.kind, r.date, r.model, r.constellations, r.bands, r.epsg, r.resolution, r.dataType,
        r.footprint ? JSON.stringify(r.footprint) : null, r.tileGuid, r.storagePath, r.acquiredBy, r.acquiredAt, r.costEur,
        r.request ? JSON.stringify(r.request) : null, r.stac ? JSON.stringify(r.stac) : null,
      ];
      const inserted = await this.pool.query(
        `WITH r AS (
           INSERT INTO swath.rasters (sha256, size, kind, image_date, model, constellations, bands, epsg, resolution, data_type,
             footprint, tile_guid, storage_path, acquired_by, acquired_at, cost_eur, request, stac)
           VALUES ($1, $2, $3, $4::date, $5, $6::text[], $7::text[], $8, $9, $10,
             ST_Multi(ST_SetSRID(ST_GeomFromGeoJSON($11), 4326)), $12, $13, $14, $15::timestamptz, $16, $17::json, $18::json)
           ON CONFLICT ON CONSTRAINT rasters_file DO NOTHING
           RETURNING *)
         SELECT ${ROW_SELECT} FROM r CROSS JOIN LATERAL (${SIZES}) s`,
        values,
      );
      if (inserted.rows.length) return { raster: this.rowOrThrow(inserted.rows[0]), created: true };
      // Already registered (by this app earlier, or a teammate at the same moment): the row as it stands.
      const existing = await this.pool.query(
        `SELECT ${ROW_SELECT} FROM swath.rasters r CROSS JOIN LATERAL (${SIZES}) s WHERE r.sha256 = $1 AND r.storage_path = $2`,
        [r.sha256, r.storagePath],
      );
      if (!existing.rows.length) throw new TeamCatalogError('transient', 'The raster was neither registered nor found in the team catalog; try again.', false);
      return { raster: this.rowOrThrow(existing.rows[0]), created: false };
    });
  }

  /** What the team owns that answers `q`, best first (see `findOwnedWithRefusals`); refused rows go to `onRefused`. */
  async findOwned(q: OwnershipQuery, signal?: AbortSignal): Promise<OwnedMatch[]> {
    return (await this.findOwnedWithRefusals(q, signal)).matches;
  }

  /**
   * Composites: the same date and model, a footprint that covers the request's area, the bands asked for or more, a
   * resolution at least as fine, the same EPSG (exact) or another (offered with the difference named). Tiles and
   * mini-tiles: the same GUID, date and kind (a copy lacking bands, coarser or in another projection is offered with
   * the difference named). Best first: exact, then finest, then oldest.
   */
  async findOwnedWithRefusals(q: OwnershipQuery, signal?: AbortSignal): Promise<OwnershipAnswer> {
    const query = checkQuery(q);
    return this.run(signal, async () => {
      await this.ensureSchema();
      const result = query.kind === 'composite'
        ? await this.pool.query(
          `WITH q AS (SELECT ST_GeomFromText($1, 4326) AS aoi)
           SELECT ${ROW_SELECT}, c.covers
           FROM swath.rasters r CROSS JOIN q
           CROSS JOIN LATERAL (${SIZES}) s
           CROSS JOIN LATERAL (SELECT CASE WHEN s.points <= $8 AND ST_IsValid(r.footprint) THEN ST_Covers(r.footprint, q.aoi) END AS covers) c
           WHERE r.kind = 'composite' AND r.image_date = $2::date AND lower(r.model) IS NOT DISTINCT FROM lower($3)
             AND r.footprint && q.aoi
             AND r.bands @> $4::text[]
             AND ($5::float8 IS NULL OR r.resolution <= $5::float8)
             AND c.covers IS NOT FALSE
           ORDER BY (c.covers IS NULL), ($6::int IS NULL OR r.epsg IS NOT DISTINCT FROM $6::int) DESC, r.resolution ASC, r.acquired_at ASC, r.id ASC
           LIMIT $7`,
          [query.aoiWkt, query.date, query.model, query.bands, query.resolution, query.epsg, MAX_MATCHES, MAX_FOOTPRINT_POINTS],
        )
        : await this.pool.query(
          `SELECT ${ROW_SELECT}, true AS covers
           FROM swath.rasters r CROSS JOIN LATERAL (${SIZES}) s
           WHERE r.tile_guid = $1 AND r.image_date = $2::date AND r.kind = $3
           ORDER BY r.resolution ASC NULLS LAST, r.acquired_at ASC, r.id ASC
           LIMIT $4`,
          [query.tileGuid, query.date, query.kind, MAX_MATCHES],
        );
      const matches: OwnedMatch[] = [];
      const refused: RowRefusal[] = [];
      for (const row of result.rows as Record<string, unknown>[]) {
        const covers = row.covers;
        delete row.covers;
        const read = parseRow(row);
        if ('refused' in read) refused.push(read.refused);
        else if (covers === null) refused.push(refusal(read.raster.id, 'its footprint is not a valid polygon'));
        else matches.push(describeMatch(read.raster, query));
      }
      this.report(refused);
      // Stable: the SQL's order (finest, oldest) within exact and then inexact matches.
      matches.sort((a, b) => Number(b.exact) - Number(a.exact));
      return { matches, refused };
    });
  }

  /**
   * Claims the purchase `key` for `holder` for `ttlMs`: granted when nobody holds it, its claim expired, or `holder`
   * already holds it (then extended). Otherwise the holder's claim with `mine: false`. `holder` is the signed-in role:
   * the catalog lets an analyst write claims only in their own name and change or end only their own (a lapsed claim
   * is nobody's), so a claim is taken by an INSERT that exactly one caller wins, never by writing over another's row.
   */
  async claim(key: string, holder: string, ttlMs: number, signal?: AbortSignal): Promise<PurchaseClaim> {
    checkClaim(key, holder);
    if (!Number.isInteger(ttlMs) || ttlMs < 1 || ttlMs > 86_400_000) throw new AppError('validation', 'ttlMs: must be a whole number of milliseconds between 1 and 86400000.');
    return this.run(signal, async () => {
      await this.ensureSchema();
      // Released or lapsed between our statements: try again (a few times at most).
      for (let attempt = 0; attempt < 5; attempt++) {
        await this.pool.query('DELETE FROM swath.purchase_claims WHERE key = $1 AND expires_at <= now()', [key]);
        const granted = await this.pool.query(
          `INSERT INTO swath.purchase_claims (key, holder, claimed_at, expires_at)
           VALUES ($1, $2, now(), now() + $3::int * interval '1 millisecond')
           ON CONFLICT (key) DO NOTHING
           RETURNING holder, ${iso('expires_at')} AS expires_at`,
          [key, holder, ttlMs],
        );
        if (granted.rows.length) return claimOf(key, granted.rows[0], true);
        const renewed = await this.pool.query(
          `UPDATE swath.purchase_claims SET claimed_at = now(), expires_at = now() + $3::int * interval '1 millisecond'
           WHERE key = $1 AND holder = $2 AND expires_at > now()
           RETURNING holder, ${iso('expires_at')} AS expires_at`,
          [key, holder, ttlMs],
        );
        if (renewed.rows.length) return claimOf(key, renewed.rows[0], true);
        const held = await this.pool.query(
          `SELECT holder, ${iso('expires_at')} AS expires_at FROM swath.purchase_claims WHERE key = $1 AND expires_at > now()`,
          [key],
        );
        if (held.rows.length) return claimOf(key, held.rows[0], false);
      }
      throw new TeamCatalogError('transient', 'The purchase claim kept changing hands; try again.', false);
    });
  }

  /** Gives up `holder`'s claim on `key` (nothing when someone else holds it). True when a claim was released. */
  async release(key: string, holder: string, signal?: AbortSignal): Promise<boolean> {
    checkClaim(key, holder);
    return this.run(signal, async () => {
      await this.ensureSchema();
      const r = await this.pool.query('DELETE FROM swath.purchase_claims WHERE key = $1 AND holder = $2', [key, holder]);
      return (r.rowCount ?? 0) > 0;
    });
  }

  /** The claim standing on `key` now (a teammate's purchase in progress), or null; `mine` is false. */
  async standingClaim(key: string, signal?: AbortSignal): Promise<PurchaseClaim | null> {
    checkClaim(key, 'waiting');
    return this.run(signal, async () => {
      await this.ensureSchema();
      const r = await this.pool.query(`SELECT holder, ${iso('expires_at')} AS expires_at FROM swath.purchase_claims WHERE key = $1 AND expires_at > now()`, [key]);
      return r.rows.length ? claimOf(key, r.rows[0], false) : null;
    });
  }

  /**
   * Waits while a teammate's claim on `key` stands for what `q` asks: resolves with the team's copies as soon as one
   * answers `q`, or with none once the claim is gone (released or lapsed without a registration: the caller may buy).
   * Asks every `intervalMs` (default 2 s); the claim is read before the copies, so a holder that registers and then
   * releases is always seen with its copy. `onWaiting` hears each look that found the claim standing and no copy.
   * Rejects with an AbortError when `signal` fires.
   */
  async waitForPurchase(
    key: string,
    q: OwnershipQuery,
    options: { signal?: AbortSignal; intervalMs?: number; onWaiting?: (claim: PurchaseClaim) => void } = {},
  ): Promise<{ matches: OwnedMatch[]; claim: PurchaseClaim | null }> {
    checkClaim(key, 'waiting');
    const interval = options.intervalMs ?? 2_000;
    for (;;) {
      const held = await this.standingClaim(key, options.signal);
      const matches = await this.findOwned(q, options.signal);
      if (matches.length || !held) return { matches, claim: held };
      options.onWaiting?.(held);
      await sleep(interval, options.signal ?? new AbortController().signal);
    }
  }

  /** The catalog in pages by id (the STAC export of the team catalog); `after` is the previous page's `next`. */
  async list(page: { limit: number; after?: string | null }, signal?: AbortSignal): Promise<CatalogPage> {
    const limit = page.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new AppError('validation', `limit: must be a whole number between 1 and ${MAX_PAGE}.`);
    const after = page.after ?? '0';
    if (!/^\d{1,19}$/.test(after)) throw new AppError('validation', 'after: must be the id a previous page returned.');
    return this.run(signal, async () => {
      await this.ensureSchema();
      const r = await this.pool.query(
        `SELECT ${ROW_SELECT} FROM swath.rasters r CROSS JOIN LATERAL (${SIZES}) s WHERE r.id > $1::bigint ORDER BY r.id LIMIT $2`,
        [after, limit],
      );
      const rasters: TeamRaster[] = [];
      const refused: RowRefusal[] = [];
      for (const row of r.rows as Record<string, unknown>[]) {
        const read = parseRow(row);
        if ('refused' in read) refused.push(read.refused);
        else rasters.push(read.raster);
      }
      this.report(refused);
      const last = r.rows.length === limit ? (r.rows[r.rows.length - 1] as { id: string }).id : null;
      return { rasters, refused, next: last };
    });
  }

  // ---- internals

  /** Runs `op`, keeping the status; rejects with a `TeamCatalogError` (password scrubbed) or an AbortError. */
  private async run<T>(signal: AbortSignal | undefined, op: () => Promise<T>): Promise<T> {
    throwIfAborted(signal);
    const p = (async () => {
      try {
        const value = await op();
        this.markOnline();
        return value;
      } catch (e) {
        const error = this.toError(e);
        if (error.unreachable) this.markUnreachable(error.message);
        else this.markOnline(); // the server answered, with an error
        throw error;
      }
    })();
    // An aborted caller stops waiting; the statement ends by itself (statement_timeout bounds it).
    return signal ? abortable(p, signal) : p;
  }

  private async ensureSchema(): Promise<void> {
    this.schemaChecked ??= (async () => {
      const client = await this.pool.connect();
      try {
        const exists = await client.query(`SELECT to_regclass('swath.swath_schema') IS NOT NULL AS ok`);
        if (!exists.rows[0].ok) {
          throw new TeamCatalogError('validation', `The team catalog at ${this.where} has no Swath schema yet: IT applies it with \`npm run team:migrate -- <url>\` (the IT guide, "Team library: setting it up").`, false);
        }
        const version = await readVersion(client);
        if (version > SCHEMA_VERSION) throw newerSchema(version);
        if (version < SCHEMA_VERSION) {
          throw new TeamCatalogError('validation', `The team catalog's schema is at version ${version}, older than this version of Swath needs (${SCHEMA_VERSION}): IT applies the migrations with \`npm run team:migrate -- <url>\`.`, false);
        }
      } finally {
        client.release();
      }
    })();
    try {
      await this.schemaChecked;
    } catch (e) {
      this.schemaChecked = null;
      throw e;
    }
  }

  private rowOrThrow(row: Record<string, unknown>): TeamRaster {
    const read = parseRow(row);
    if ('refused' in read) throw new TeamCatalogError('validation', read.refused.message, false);
    return read.raster;
  }

  private report(refused: RowRefusal[]): void {
    for (const r of refused) this.options.onRefused?.(r);
  }

  private nowIso(): string {
    return isoNow(this.options.clock ?? systemClock);
  }

  private markOnline(): void {
    this.setStatus({ state: 'online', checkedAt: this.nowIso() });
  }

  private markUnreachable(reason: string): void {
    const since = this.current.state === 'unreachable' ? this.current.since : this.nowIso();
    this.setStatus({ state: 'unreachable', since, reason: this.scrub(reason) });
  }

  private setStatus(s: TeamStatus): void {
    const before = this.current;
    this.current = s;
    if (before.state !== s.state) this.options.onStatus?.(s);
  }

  /** The password (as typed and URL-encoded) replaced by `***` in `text`. */
  private scrub(text: string): string {
    let out = text;
    for (const secret of [this.password, encodeURIComponent(this.password)]) {
      if (secret.length >= 1) out = out.split(secret).join('***');
    }
    return out;
  }

  /** What went wrong, in words, without the password. */
  private describe(e: unknown): string {
    const err = e as { code?: string; message?: string };
    const code = typeof err?.code === 'string' ? err.code : '';
    const message = typeof err?.message === 'string' ? err.message : String(e);
    if (NETWORK_CODES.has(code)) return this.scrub(`cannot reach ${this.where} (${code})`);
    if (TLS_CODE.test(code)) return this.scrub(`the catalog's TLS certificate was refused (${code}: ${message.slice(0, 200)})`);
    if (code === '28P01' || code === '28000') return this.scrub(`the catalog refused the login of role ${this.where.split('@')[0]}: ${message.slice(0, 200)}`);
    return this.scrub(message.replace(/[\r\n]+/g, ' ').slice(0, 300));
  }

  private toError(e: unknown): TeamCatalogError {
    if (e instanceof TeamCatalogError) return e;
    if (e instanceof AppError) return new TeamCatalogError(e.kind as ErrorKind, this.scrub(e.message), false);
    if (e instanceof Error && e.name === 'AbortError') throw e;
    const err = e as { code?: string; message?: string };
    const code = typeof err?.code === 'string' ? err.code : '';
    const message = typeof err?.message === 'string' ? err.message : '';
    const reason = this.describe(e);
    if (code === '28P01' || code === '28000') return new TeamCatalogError('auth', `The team catalog refused the login: ${reason}.`, true);
    const unreachable = NETWORK_CODES.has(code) || TLS_CODE.test(code) || code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '3D000'].includes(code)
      || /Connection terminated|connection timeout|timeout exceeded when trying to connect|does not support SSL|Query read timeout/i.test(message);
    if (unreachable) return new TeamCatalogError('transient', `The team catalog is unreachable: ${reason}.`, true);
    // A row in another analyst's name (row-level security): that row is refused, not the role.
    if (code === '42501' && /row-level security/i.test(message)) return new TeamCatalogError('validation', `The team catalog refused the row: ${reason} (an analyst adds rasters and claims only in their own role's name).`, false);
    if (code === '42501') return new TeamCatalogError('auth', `The team catalog role may not do this: ${reason} (IT grants analysts their rights: the IT guide).`, false);
    if (code === '57014') return new TeamCatalogError('transient', `The team catalog took too long to answer: ${reason}.`, false);
    if (code.startsWith('22') || code === 'XX000') return new TeamCatalogError('validation', `The team catalog refused the request: ${reason}.`, false);
    return new TeamCatalogError('io', `The team catalog failed: ${reason}.`, false);
  }
}

function iso(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

async function readVersion(client: pg.PoolClient): Promise<number> {
  const r = await client.query('SELECT coalesce(max(version), 0)::int AS v FROM swath.swath_schema');
  return r.rows[0].v as number;
}

function newerSchema(version: number): TeamCatalogError {
  return new TeamCatalogError('validation', `The team catalog's schema is at version ${version}, newer than this version of Swath knows (${SCHEMA_VERSION}): update Swath.`, false);
}

function claimOf(key: string, row: { holder: string; expires_at: string }, granted: boolean): PurchaseClaim {
  return { key, holder: String(row.holder).slice(0, 200), expiresAt: String(row.expires_at), mine: granted };
}

function checkClaim(key: string, holder: string): void {
  if (typeof key !== 'string' || key.length < 1 || key.length > 512) throw new AppError('validation', 'key: must be 1 to 512 characters.');
  if (typeof holder !== 'string' || holder.length < 1 || holder.length > 200) throw new AppError('validation', 'holder: must be 1 to 200 characters.');
}

function checkQuery(q: OwnershipQuery): OwnershipQuery {
  const bad = (field: string, reason: string) => new AppError('validation', `${field}: ${reason}.`);
  if (!['composite', 'tile', 'minitile'].includes(q.kind)) throw bad('kind', 'must be composite, tile or minitile');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(q.date)) throw bad('date', 'must be YYYY-MM-DD');
  if (q.model !== null && (typeof q.model !== 'string' || q.model.length > 200)) throw bad('model', 'must be at most 200 characters');
  if (!Array.isArray(q.bands) || q.bands.length > 256 || q.bands.some((b) => typeof b !== 'string' || b.length > 64)) throw bad('bands', 'must be at most 256 names of at most 64 characters');
  if (q.resolution !== null && !(Number.isFinite(q.resolution) && q.resolution > 0)) throw bad('resolution', 'must be a positive number of metres');
  if (q.epsg !== null && !(Number.isInteger(q.epsg) && q.epsg > 0 && q.epsg < 1_000_000)) throw bad('epsg', 'must be an EPSG code');
  if (q.kind === 'composite') {
    if (typeof q.aoiWkt !== 'string' || !q.aoiWkt.trim()) throw bad('aoiWkt', 'a composite is checked against the request\'s area (WKT in EPSG:4326)');
    if (q.aoiWkt.length > MAX_AOI_WKT) throw bad('aoiWkt', `is ${q.aoiWkt.length} characters (limit ${MAX_AOI_WKT})`);
  } else if (typeof q.tileGuid !== 'string' || !q.tileGuid || q.tileGuid.length > 200) {
    throw bad('tileGuid', 'a tile is matched by its GUID (1 to 200 characters)');
  }
  return q;
}

const epsgName = (epsg: number | null) => (epsg === null ? 'an unknown projection' : `EPSG:${epsg}`);

/** Whether `raster` is exactly what `q` asks for, and what differs in words. */
function describeMatch(raster: TeamRaster, q: OwnershipQuery): OwnedMatch {
  const differences: string[] = [];
  if (q.kind !== 'composite') {
    const missing = q.bands.filter((b) => !raster.bands.includes(b));
    if (missing.length) differences.push(`without band${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
    if (q.resolution !== null && (raster.resolution === null || raster.resolution > q.resolution)) {
      differences.push(`${raster.resolution === null ? 'an unknown resolution' : `${raster.resolution} m`} instead of ${q.resolution} m`);
    }
  }
  if (q.epsg !== null && raster.epsg !== q.epsg) differences.push(`${epsgName(raster.epsg)} instead of ${epsgName(q.epsg)}`);
  // Another data type is another product (Byte is not Int16): offered, with the difference named.
  if (q.dataType && raster.dataType && raster.dataType.toLowerCase() !== q.dataType.toLowerCase()) differences.push(`${raster.dataType} pixels instead of ${q.dataType}`);
  return { raster, exact: differences.length === 0, differences };
}
