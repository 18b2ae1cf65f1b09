import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import type { teamCheckSchema, teamMatchSchema, teamStatusSchema } from '../../preload/contract';
import { AppError } from '../../common/errors.js';
import { isoNow, type Clock } from '../platform/clock';
import type { SecretRegistry } from '../platform/secrets';
import { Readable as NodeReadable, type Readable } from 'node:stream';
import { sha256File, type LibraryCatalog, type LibraryEntry, type RemoteRasterFile } from '../library';
import type { Keychain } from '../profiles';
import { teammateText } from './rows';
import { publishNumbered } from '../shared/files.js';
import { copyExclusive, partBeside } from './share';
import type { OwnedMatch, OwnershipQuery, PurchaseClaim, TeamFootprint, TeamRaster, TeamRasterInput, TeamRasterKind, TeamStatus } from './types';

/**
 * The team library in one place for the rest of main: it answers "does the team already own this?"
 * before every purchase, claims a purchase so a teammate's identical one waits, and after a
 * download copies the file to the shared store and queues its registration. The catalog, the share
 * and the outbox are ports (main/team/catalog.ts, share.ts, outbox.ts); the composition root wires
 * them from the admin policy and the analyst's keychain.
 */

export type TeamStatusView = z.infer<typeof teamStatusSchema>;
export type TeamCheckView = z.infer<typeof teamCheckSchema>;
type TeamMatchView = z.infer<typeof teamMatchSchema>;

/** The catalog as this module uses it. */
export interface TeamCatalogPort {
  findOwned(q: OwnershipQuery, signal?: AbortSignal): Promise<OwnedMatch[]>;
  claim(key: string, holder: string, ttlMs: number): Promise<PurchaseClaim>;
  release(key: string, holder: string): Promise<unknown>;
  /** The catalog in pages by id. */
  list(page: { limit: number; after?: string | null }, signal?: AbortSignal): Promise<{ rasters: TeamRaster[]; next: string | null }>;
  /** The claim standing on `key` now, or null. */
  standingClaim(key: string, signal?: AbortSignal): Promise<PurchaseClaim | null>;
  /** Waits while a teammate's claim on `key` stands; their copies once registered, or none once the claim is gone. */
  waitForPurchase(key: string, q: OwnershipQuery, options: { signal?: AbortSignal }): Promise<{ matches: OwnedMatch[]; claim: PurchaseClaim | null }>;
  status(): TeamStatus;
  /** Connects and checks the schema version; throws when the catalog cannot be used. */
  check(signal?: AbortSignal): Promise<void>;
  /** Applies the schema's migrations (an admin role only). */
  migrate(signal?: AbortSignal): Promise<unknown>;
  close(): Promise<void>;
}

/** The shared raster store as this module uses it. */
export interface TeamSharePort {
  put(localFile: string, sha256: string, suggestedRelPath: string, signal: AbortSignal): Promise<string>;
  resolve(storagePath: string): Promise<string>;
}

/** The team's read URL as this module uses it (main/team/range-reader.ts: TeamReadUrl). */
export interface TeamReadPort {
  urlOf(storagePath: string): string;
  open(storagePath: string, start: number, end: number, size: number, signal: AbortSignal): Promise<Readable>;
  download(storagePath: string, size: number, sha256: string, file: string, signal: AbortSignal): Promise<void>;
}

/** The durable registration queue as this module uses it. */
export interface TeamOutboxPort {
  enqueue(input: TeamRasterInput): unknown;
  pending(): number;
  /** Resolves when nothing is waiting to be sent. */
  idle(): Promise<void>;
  /** Where a queued registration stands: waiting, parked (the catalog refused it), or sent (the catalog confirmed it). */
  stateOf(input: TeamRasterInput): 'waiting' | 'parked' | 'sent';
  close(): Promise<void>;
}

/** The analyst's catalog credentials, kept in the OS keychain. */
export interface TeamCredentials {
  role: string;
  password: string;
}

/** The keychain account holding the team catalog's credentials (JSON of {@link TeamCredentials}). */
export const TEAM_KEYCHAIN_ACCOUNT = 'team-catalog';

/** How long a purchase claim holds when its holder never finishes (a download's lifetime, generously). */
export const CLAIM_TTL_MS = 30 * 60_000;

/** The ownership rules (main/team/match.ts) as this module uses them. */
export interface TeamRules {
  ownershipQueryFor(kind: TeamRasterKind, request: Record<string, unknown>): { query: OwnershipQuery | null; reason?: string };
  purchaseKey(q: OwnershipQuery): string;
  teamRasterInputFor(entry: LibraryEntry, storagePath: string, acquiredBy: string, costEur: number | null): TeamRasterInput;
  /** Where a library raster is filed in the share (`<kind>/<year>/<file name>`). */
  storagePathFor(entry: LibraryEntry): string;
}

/** What the team library needs from the app. */
export interface TeamLibraryDeps {
  /** The policy's keys; all null: the team library is off. */
  config: { catalogUrl: string | null; sharePath: string | null; readUrl: string | null };
  keychain: Pick<Keychain, 'get' | 'set' | 'delete'>;
  /** Opens the catalog with the analyst's credentials (the real one: TeamCatalog over pg). */
  openCatalog(credentials: TeamCredentials): TeamCatalogPort;
  share: TeamSharePort | null;
  /** The policy's read URL (null: none), for a machine that does not mount the share. */
  reader?: TeamReadPort | null;
  /** The durable registration queue; `deliverTo` names the catalog it sends to (null: keep queueing). */
  outbox: TeamOutboxPort & { deliverTo(catalog: TeamCatalogPort | null): void };
  rules: TeamRules;
  library: Pick<LibraryCatalog, 'importFile' | 'get' | 'flush' | 'remove'>;
  /** The folder a copied raster goes to. */
  downloadDir(): string;
  onStatus(status: TeamStatusView): void;
  log(line: string): void;
  /** The app's secret registry: the catalog password is added, so every egress masks it. */
  secrets: SecretRegistry;
  /** The app's clock. */
  clock: Clock;
}

/** A purchase main let through: its claim, until the download ends. */
export interface TeamPurchase {
  /** The download finished: copy it to the share and register it, then end the claim. */
  done(libraryId: string, costEur: number | null): void;
  /** Nothing was bought: end the claim. */
  abandoned(): void;
}

const NOTHING: TeamPurchase = { done: () => undefined, abandoned: () => undefined };

/** Main's refusal of a purchase the team owns or a teammate is buying now (a validation error the form shows). */
export class TeamRefusal extends AppError<'validation'> {
  /** `owned`: the request's `buyAnyway` would let it through, and the error names that field. */
  constructor(message: string, owned = false) {
    super('validation', message, owned ? { fields: { buyAnyway: [message] } } : {});
    this.name = 'TeamRefusal';
  }
}

/** `link` refused on a machine that reaches the team's rasters only over the read URL (a copy works). */
class LinkNeedsShare extends AppError<'validation'> {
  constructor(message: string) {
    super('validation', message);
    this.name = 'LinkNeedsShare';
  }
}

/** The most rasters one STAC export of the team catalog holds. */
export const MAX_TEAM_EXPORT = 100_000;

/** A team raster as a library entry at its place on the share (lexically: the export only names the file). */
function entryOf(r: TeamRaster, shareRoot: string): LibraryEntry {
  return {
    id: `team-${r.id}`,
    path: path.join(shareRoot, ...r.storagePath.split('/')),
    size: r.size,
    sha256: r.sha256,
    request: r.request,
    kind: r.kind,
    date: r.date,
    model: r.model,
    constellations: r.constellations,
    bands: r.bands,
    epsg: r.epsg,
    resolution: r.resolution,
    width: 0,
    height: 0,
    bounds4326: r.footprint ? bboxOf(r.footprint) : null,
    createdAt: r.acquiredAt,
    source: 'download',
  };
}

function bboxOf(f: TeamFootprint): [number, number, number, number] | null {
  let w = Infinity;
  let s = Infinity;
  let e = -Infinity;
  let n = -Infinity;
  const visit = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === 'number') {
      w = Math.min(w, c[0]);
      e = Math.max(e, c[0]);
      s = Math.min(s, c[1] as number);
      n = Math.max(n, c[1] as number);
    } else if (Array.isArray(c)) for (const x of c) visit(x);
  };
  visit(f.coordinates);
  return Number.isFinite(w) ? [w, s, e, n] : null;
}

/** The most `name (n)` variants tried for a copy in the download folder. */
const MAX_NAME_TRIES = 1000;
/** Rasters seen in recent checks, so "use the team's copy" names one by id without asking again. */
const SEEN_MAX = 500;
/** Teammates' rasters the map may read over the read URL at once (the most recently previewed). */
const PREVIEWS_MAX = 100;
/** The raster id a teammate's raster previewed over the read URL is served under. */
const PREVIEW_PREFIX = 'team-';

function matchView(m: OwnedMatch, available: boolean, readable: boolean): TeamMatchView {
  const r = m.raster;
  return {
    id: r.id, acquiredBy: teammateText(r.acquiredBy), acquiredAt: r.acquiredAt, date: r.date, model: r.model === null ? null : teammateText(r.model),
    bands: r.bands.map((b) => teammateText(b)), resolution: r.resolution, epsg: r.epsg, costEur: r.costEur, exact: m.exact,
    differences: m.differences.map((d) => teammateText(d)), available, readable,
  };
}

/** "alice on 2026-10-03": who bought a team raster and when, as shown. */
function boughtBy(r: TeamRaster): string {
  return `${teammateText(r.acquiredBy)} on ${r.acquiredAt.slice(0, 10)}`;
}

/** The team library (see the module comment). */
export class TeamLibrary {
  private catalog: TeamCatalogPort | null = null;
  private role: string | null = null;
  private readonly seen = new Map<string, TeamRaster>();
  /** Rasters previewed over the read URL, by the raster id the map reads them under. */
  private readonly previews = new Map<string, TeamRaster>();
  private readonly jobs = new Map<string, { purchase: TeamPurchase; costEur: number | null }>();
  private closed = false;
  /** Why a catalog that answers cannot be used, from the last look (see {@link refresh}). */
  private problem: { since: string; reason: string } | null = null;

  private constructor(private readonly deps: TeamLibraryDeps) {}

  /** Starts the team library from the policy and the keychain; off when the policy names no catalog. */
  static async open(deps: TeamLibraryDeps): Promise<TeamLibrary> {
    const team = new TeamLibrary(deps);
    if (deps.config.catalogUrl) {
      const stored = await deps.keychain.get(TEAM_KEYCHAIN_ACCOUNT).catch((e: unknown) => {
        deps.log(`team: the keychain could not be read: ${(e as Error).message}`);
        return null;
      });
      const credentials = parseCredentials(stored);
      if (credentials) team.connect(credentials);
    }
    return team;
  }

  private connect(credentials: TeamCredentials): void {
    // Masked from here on in every log line, error and event main sends, like the API key.
    this.deps.secrets.add(credentials.password);
    this.catalog = this.deps.openCatalog(credentials);
    this.role = credentials.role;
    this.deps.outbox.deliverTo(this.catalog);
  }

  /** Where the team library stands. */
  status(): TeamStatusView {
    const { catalogUrl, sharePath, readUrl } = this.deps.config;
    const base = { catalogUrl, sharePath, readUrl, role: this.role, since: null, reason: null, pending: this.deps.outbox.pending() };
    if (!catalogUrl) return { ...base, state: 'off' };
    if (!this.catalog) return { ...base, state: 'no-credentials' };
    const s = this.catalog.status();
    if (s.state === 'unreachable') return { ...base, state: 'unreachable', since: s.since, reason: s.reason };
    // It answers, but cannot be used (no schema, an older or newer one, no right to it).
    if (this.problem) return { ...base, state: 'unreachable', ...this.problem };
    return { ...base, state: 'online' };
  }

  /** Asks an unreachable catalog again (the status line or Settings looked), so the queue is sent as soon as it answers. */
  async refresh(): Promise<TeamStatusView> {
    const catalog = this.catalog;
    if (catalog && (catalog.status().state !== 'online' || this.problem)) {
      try {
        await catalog.check();
        this.problem = null;
      } catch (e) {
        this.problem = null;
        // No schema yet, or an older one: an admin role signing in applies the migrations (an analyst's cannot).
        const migrated = e instanceof AppError && e.kind === 'validation' && /schema/i.test(e.message)
          && (await catalog.migrate().then(() => catalog.check()).then(() => true, () => false));
        if (!migrated && catalog.status().state !== 'unreachable') this.problem = { since: isoNow(this.deps.clock), reason: (e as Error).message };
      }
    }
    return this.status();
  }

  /** Stores (or clears) the analyst's catalog credentials in the keychain and reconnects with them. */
  async setCredentials(credentials: TeamCredentials | null): Promise<TeamStatusView> {
    if (!this.deps.config.catalogUrl) throw new AppError('validation', 'No team catalog is set up: your organisation’s policy names none (teamCatalogUrl).');
    const old = this.catalog;
    this.catalog = null;
    this.role = null;
    this.problem = null;
    this.deps.outbox.deliverTo(null);
    await old?.close().catch(() => undefined);
    if (credentials) {
      await this.deps.keychain.set(TEAM_KEYCHAIN_ACCOUNT, JSON.stringify(credentials));
      this.connect(credentials);
    } else {
      await this.deps.keychain.delete(TEAM_KEYCHAIN_ACCOUNT);
    }
    // Signed in means the catalog answered (or the reason it did not: a wrong password, no server).
    const status = await this.refresh();
    this.deps.onStatus(status);
    return status;
  }

  /** "Does the team already own this?" for the estimate views; never throws for the catalog's sake. */
  async check(kind: TeamRasterKind, request: Record<string, unknown>, signal: AbortSignal): Promise<TeamCheckView> {
    const empty = { matches: [], claim: null, reason: null };
    if (!this.deps.config.catalogUrl) return { ...empty, state: 'off' };
    if (!this.catalog) return { ...empty, state: 'unchecked', reason: 'Enter your team catalog role and password in Settings to check what the team owns.' };
    const { query: q, reason } = this.deps.rules.ownershipQueryFor(kind, request);
    if (!q) return { ...empty, state: 'unchecked', reason: `This request cannot be matched against the team’s rasters: ${reason ?? 'it names no date'}.` };
    let matches: OwnedMatch[];
    try {
      matches = await this.catalog.findOwned(q, signal);
    } catch (e) {
      if (signal.aborted) throw e;
      this.deps.onStatus(this.status());
      return { ...empty, state: 'unchecked', reason: `The team catalog could not be asked: ${(e as Error).message}` };
    }
    if (matches.length === 0) {
      // Not owned yet: a teammate may be buying it right now.
      const claim = await this.catalog.standingClaim(this.deps.rules.purchaseKey(q), signal).catch(() => null);
      if (claim && claim.holder !== this.role) return { ...empty, state: 'claimed', claim: { holder: teammateText(claim.holder), expiresAt: claim.expiresAt } };
      return { ...empty, state: 'none' };
    }
    return this.owned(matches);
  }

  /** Waits for a teammate's purchase of this request to be registered (abortable), then answers as {@link check} does. */
  async waitFor(kind: TeamRasterKind, request: Record<string, unknown>, signal: AbortSignal): Promise<TeamCheckView> {
    const catalog = this.catalog;
    const q = this.deps.rules.ownershipQueryFor(kind, request).query;
    if (!catalog || !q) return this.check(kind, request, signal);
    const { matches } = await catalog.waitForPurchase(this.deps.rules.purchaseKey(q), q, { signal });
    return matches.length ? this.owned(matches) : { state: 'none', matches: [], claim: null, reason: null };
  }

  private async owned(matches: OwnedMatch[]): Promise<TeamCheckView> {
    const empty = { matches: [], claim: null, reason: null };
    const views: TeamMatchView[] = [];
    for (const m of matches.slice(0, 10)) {
      this.remember(m.raster);
      views.push(matchView(m, await this.available(m.raster), !!this.deps.reader));
    }
    return { ...empty, state: 'owned', matches: views };
  }

  /**
   * Main's rule before a purchase: refused when the team owns exactly this (unless the analyst
   * chose to buy anyway) or when a teammate is buying it now (claimed). When the catalog cannot be
   * asked the purchase goes on (the estimate view said the check could not be made).
   */
  async beforePurchase(kind: TeamRasterKind, request: Record<string, unknown>, buyAnyway: boolean, signal: AbortSignal): Promise<TeamPurchase> {
    const catalog = this.catalog;
    const role = this.role;
    if (!catalog || !role) return NOTHING;
    const q = this.deps.rules.ownershipQueryFor(kind, request).query;
    if (!q) return NOTHING;
    let key: string | null = null;
    try {
      if (!buyAnyway) this.refuseOwned(await this.exactCopy(catalog, q, signal));
      const claim = await catalog.claim(this.deps.rules.purchaseKey(q), role, CLAIM_TTL_MS);
      if (!claim.mine) {
        throw new TeamRefusal(`${teammateText(claim.holder)} is buying this now (claimed until ${claim.expiresAt.replace(/\.\d+Z$/, 'Z')}). Wait for their copy: it shows here when it is registered.`);
      }
      key = claim.key;
      if (!buyAnyway) {
        // Asked again under the claim: a teammate may have registered it and released their claim since the look above.
        const exact = await this.exactCopy(catalog, q, signal);
        if (exact) {
          await this.release(catalog, key, role);
          this.refuseOwned(exact);
        }
      }
      return this.purchase(catalog, key, role);
    } catch (e) {
      if (e instanceof TeamRefusal || signal.aborted) throw e;
      this.deps.log(`team: the ownership check before a purchase could not be made: ${(e as Error).message}`);
      this.deps.onStatus(this.status());
      // Bought under the claim when it was granted, else without one; still shared with the team once it is downloaded (registered when the catalog is back).
      return this.purchase(catalog, key, role);
    }
  }

  /** The team's exact copy of `q`, if any (remembered for "use the team's copy"). */
  private async exactCopy(catalog: TeamCatalogPort, q: OwnershipQuery, signal: AbortSignal): Promise<OwnedMatch | null> {
    const exact = (await catalog.findOwned(q, signal)).find((m) => m.exact) ?? null;
    if (exact) this.remember(exact.raster);
    return exact;
  }

  private refuseOwned(exact: OwnedMatch | null): void {
    if (!exact) return;
    throw new TeamRefusal(`The team already owns this: bought by ${boughtBy(exact.raster)}. Use the team’s copy (0 EUR), or choose “Buy anyway”.`, true);
  }

  /** Ends `role`'s claim on `key` (a failure is logged: the claim lapses by itself). */
  private async release(catalog: TeamCatalogPort, key: string, role: string): Promise<void> {
    await catalog.release(key, role).catch((e: unknown) => this.deps.log(`team: a purchase claim could not be released (it lapses by itself): ${(e as Error).message}`));
  }

  /**
   * A watch's date about to be bought: a copy the team owns exactly is linked from the share into
   * the library, or copied over the read URL on a machine without the share (0 EUR); a date a teammate is buying now waits for the next run; else it is
   * claimed and bought. When the catalog cannot be asked, the date waits for the next run.
   */
  async forWatch(request: Record<string, unknown>, signal: AbortSignal): Promise<
    | { kind: 'owned'; libraryId: string; path: string; note: string }
    | { kind: 'wait'; note: string }
    | { kind: 'buy'; purchase: TeamPurchase | null }
  > {
    const catalog = this.catalog;
    const role = this.role;
    if (!catalog || !role) return { kind: 'buy', purchase: null };
    const q = this.deps.rules.ownershipQueryFor('composite', request).query;
    if (!q) return { kind: 'buy', purchase: null };
    try {
      let exact = await this.exactCopy(catalog, q, signal);
      if (!exact) {
        const claim = await catalog.claim(this.deps.rules.purchaseKey(q), role, CLAIM_TTL_MS);
        if (!claim.mine) return { kind: 'wait', note: `${teammateText(claim.holder)} is buying ${q.date} now.` };
        // Asked again under the claim: a teammate may have registered it and released their claim since the look above.
        try {
          exact = await this.exactCopy(catalog, q, signal);
        } catch (e) {
          await this.release(catalog, claim.key, role);
          throw e;
        }
        if (!exact) return { kind: 'buy', purchase: this.purchase(catalog, claim.key, role) };
        await this.release(catalog, claim.key, role);
      }
      const by = boughtBy(exact.raster);
      try {
        // Linked from the share; a machine without it copies over the read URL (0 EUR either way).
        const used = await this.useCopy(exact.raster.id, 'link', signal).catch((e: unknown) => {
          if (signal.aborted || !(e instanceof LinkNeedsShare)) throw e;
          return this.useCopy(exact.raster.id, 'copy', signal);
        });
        return { kind: 'owned', ...used, note: `The team’s copy (team catalog row ${exact.raster.id}, bought by ${by}); 0 EUR.` };
      } catch (e) {
        if (signal.aborted) throw e;
        return { kind: 'wait', note: `The team owns ${q.date} (team catalog row ${exact.raster.id}, bought by ${by}), but its copy cannot be used from this machine: ${teammateText((e as Error).message, 500)}` };
      }
    } catch (e) {
      if (signal.aborted) throw e;
      // A watch is never urgent: rather than risk paying twice, the date waits for the next run.
      const reason = (e as Error).message;
      this.deps.log(`team: a watch could not ask the team catalog: ${reason}`);
      this.deps.onStatus(this.status());
      return { kind: 'wait', note: `The team catalog could not be asked (${reason}); ${q.date} is checked again next run.` };
    }
  }

  /** A purchase under way: `key` is its claim in the catalog (null: made without one, the catalog could not be asked). */
  private purchase(catalog: TeamCatalogPort, key: string | null, role: string): TeamPurchase {
    let ended = false;
    const release = (): void => {
      if (key !== null) void this.release(catalog, key, role);
    };
    return {
      done: (libraryId, costEur) => {
        if (ended) return;
        ended = true;
        // The claim ends once the registration is in the catalog: a teammate waiting for it then finds the copy, never a gap.
        // A copy that could not be shared or registered keeps the claim until it lapses: released, a teammate would buy it again at once.
        void this.share(libraryId, role, costEur).then((shared) => {
          if (shared) release();
          else if (key !== null) this.deps.log(`team: the purchase claim on ${libraryId} is kept until it lapses (${CLAIM_TTL_MS / 60_000} min), so teammates wait rather than buy it again.`);
        });
      },
      abandoned: () => {
        if (ended) return;
        ended = true;
        release();
      },
    };
  }

  /**
   * Copies a finished download to the share, filed by the documented layout, and queues its registration; true once
   * the registration is in the catalog, or when there is no share to copy to (nothing for a teammate to wait for);
   * false when the copy or its registration failed, or the app closed first.
   */
  private async share(libraryId: string, role: string, costEur: number | null): Promise<boolean> {
    const share = this.deps.share;
    if (!share) return true;
    if (this.closed) return false;
    try {
      // The library hashes a download in the background: its sha256 is what the share checks the copy against.
      await this.deps.library.flush();
      const entry = this.deps.library.get(libraryId);
      if (!entry?.sha256) throw new AppError('io', 'the library has no sha256 of it');
      const storagePath = await share.put(entry.path, entry.sha256, this.deps.rules.storagePathFor(entry), new AbortController().signal);
      const input = this.deps.rules.teamRasterInputFor(entry, storagePath, role, costEur);
      this.deps.outbox.enqueue(input);
      this.deps.onStatus(this.status());
      await this.deps.outbox.idle();
      const state = this.deps.outbox.stateOf(input);
      if (state === 'sent') return true;
      this.deps.log(`team: ${libraryId} was copied to the team share but not registered: ${state === 'parked' ? 'the catalog refused the registration' : 'it is still queued'}.`);
      return false;
    } catch (e) {
      this.deps.log(`team: ${libraryId} could not be shared with the team: ${(e as Error).message}`);
      return false;
    }
  }

  /** Ties a purchase to the download job that makes it: {@link jobEnded} ends it. */
  holdForJob(jobId: string, purchase: TeamPurchase, costEur: number | null): void {
    if (purchase !== NOTHING) this.jobs.set(jobId, { purchase, costEur });
  }

  /** A job changed state: a finished one is shared with the team; a failed or cancelled one ends its claim. */
  jobEnded(job: { id: string; state: string; libraryId?: string }): void {
    const held = this.jobs.get(job.id);
    if (!held) return;
    if (job.state === 'done') {
      this.jobs.delete(job.id);
      if (job.libraryId) held.purchase.done(job.libraryId, held.costEur);
      else held.purchase.abandoned();
    } else if (job.state === 'failed' || job.state === 'cancelled') {
      this.jobs.delete(job.id);
      held.purchase.abandoned();
    }
  }

  /**
   * Uses a teammate's copy: links the file on the share into the library, or copies it into the
   * download folder first; either way its size and sha256 are checked against the catalog row
   * before it enters the library (a teammate may have left any file at that path). A machine that does not reach the share copies it over
   * the policy's read URL instead; a link needs the share (a library entry is a file), so without
   * it `link` is refused, naming the way that works: preview over the read URL, or copy.
   */
  async useCopy(id: string, mode: 'link' | 'copy', signal: AbortSignal): Promise<{ libraryId: string; path: string }> {
    const raster = this.seen.get(id);
    if (!raster) throw new AppError('not-found', `No team raster ${id} among the ones just checked; check the estimate again.`);
    const { share, reader } = this.deps;
    if (!share && !reader) throw new AppError('validation', 'No team share is set up: your organisation’s policy names none (teamSharePath).');
    let onShare: string | null = null;
    let unreachable = 'this machine does not mount the team share (the policy names no teamSharePath)';
    if (share) {
      try {
        onShare = await share.resolve(raster.storagePath);
      } catch (e) {
        // A refused path stays refused; a share that is not there may be read over the URL.
        if (!reader || !(e instanceof AppError && e.kind === 'io')) throw e;
        unreachable = e.message;
      }
    }
    if (mode === 'link' && !onShare) {
      throw new LinkNeedsShare(`The team’s copy cannot be linked: ${unreachable.replace(/\.$/, '')}. Preview it on the map (read over the team’s read URL), or copy it to your download folder.`);
    }
    if (mode === 'link') {
      // The file on the share is what a teammate left there: it enters the library only if it is the row's bytes.
      await this.checkAgainstRow(onShare!, raster, signal);
      const entry = await this.deps.library.importFile(onShare!, signal);
      if (entry.sha256 !== raster.sha256 || entry.size !== raster.size) {
        // Changed between the check and the import.
        await this.deps.library.remove(entry.id, {}, new AbortController().signal).catch(() => undefined);
        throw mismatch(raster, onShare!);
      }
      return { libraryId: entry.id, path: entry.path };
    }
    const file = await this.copyIn(raster, onShare, signal);
    const entry = await this.deps.library.importFile(file, signal);
    return { libraryId: entry.id, path: entry.path };
  }

  /** Refuses a file on the share whose size or sha256 is not its catalog row's. */
  private async checkAgainstRow(file: string, raster: TeamRaster, signal: AbortSignal): Promise<void> {
    const st = await stat(file);
    if (!st.isFile() || st.size !== raster.size || (await sha256File(file, signal)) !== raster.sha256) throw mismatch(raster, file);
  }

  /**
   * A teammate's raster copied into the download folder (from the share, or over the read URL): written to an
   * exclusive hidden `.part`, its sha256 checked against the row, then published under its name or a free
   * `name (n)` by a link that never replaces a file. Resolves to the published file.
   */
  private async copyIn(raster: TeamRaster, onShare: string | null, signal: AbortSignal): Promise<string> {
    const dir = this.deps.downloadDir();
    await mkdir(dir, { recursive: true });
    const name = path.basename(onShare ?? raster.storagePath);
    const part = partBeside(dir, name);
    try {
      if (onShare) {
        await copyExclusive(onShare, part, signal);
        if ((await sha256File(part, signal)) !== raster.sha256) throw mismatch(raster, onShare);
      } else {
        // The reader writes its own exclusive `.part` beside `part`, checks the sha256, then gives it this unique name.
        await this.deps.reader!.download(raster.storagePath, raster.size, raster.sha256, part, signal);
      }
      return await publishNumbered(part, path.join(dir, name), { naming: 'copy', maxTries: MAX_NAME_TRIES, signal });
    } finally {
      await rm(part, { force: true }).catch(() => undefined);
    }
  }

  /**
   * Previews a teammate's raster on the map without copying it: main reads it over the policy's
   * read URL, range by range, and the raster protocol serves it under the returned entry's id
   * (`team-<row id>`). The first bytes are read now, so a server that is down or answers wrongly
   * is named here rather than as a blank map.
   */
  async preview(id: string, signal: AbortSignal): Promise<LibraryEntry> {
    const raster = this.seen.get(id);
    if (!raster) throw new AppError('not-found', `No team raster ${id} among the ones just checked; check the estimate again.`);
    const reader = this.deps.reader;
    if (!reader) throw new AppError('validation', 'The team’s rasters cannot be previewed from here: your organisation’s policy names no read URL (teamReadUrl).');
    const head = await reader.open(raster.storagePath, 0, Math.min(raster.size, 16) - 1, raster.size, signal);
    head.destroy();
    const key = `${PREVIEW_PREFIX}${raster.id}`;
    this.previews.delete(key);
    this.previews.set(key, raster);
    if (this.previews.size > PREVIEWS_MAX) this.previews.delete(this.previews.keys().next().value!);
    return { ...entryOf(raster, ''), id: key, path: reader.urlOf(raster.storagePath) };
  }

  /** The teammates' rasters previewed over the read URL, for the raster protocol (through the overview cache). */
  remoteRasters(): { get(rasterId: string): (RemoteRasterFile & { url: string }) | undefined } {
    return {
      get: (rasterId) => {
        const raster = this.previews.get(rasterId);
        const reader = this.deps.reader;
        if (!raster || !reader) return undefined;
        return {
          url: reader.urlOf(raster.storagePath),
          size: raster.size,
          open: async (start, end, signal) => toWeb(await reader.open(raster.storagePath, start, end, raster.size, signal)),
        };
      },
    };
  }

  /**
   * Every raster of the team catalog as a library entry whose path is its file on the share (for
   * the STAC export of the team catalog), read in pages; refused past {@link MAX_TEAM_EXPORT}.
   */
  async stacEntries(signal: AbortSignal): Promise<LibraryEntry[]> {
    const catalog = this.catalog;
    if (!this.deps.config.catalogUrl) throw new AppError('validation', 'No team library is set up: your organisation’s policy names no team catalog.');
    if (!catalog) throw new AppError('validation', 'Sign in to the team catalog first (Settings → Team library).');
    const root = this.deps.config.sharePath ?? '';
    const out: LibraryEntry[] = [];
    let after: string | null = null;
    do {
      const page: { rasters: TeamRaster[]; next: string | null } = await catalog.list({ limit: 500, after }, signal);
      for (const r of page.rasters) out.push(entryOf(r, root));
      if (out.length > MAX_TEAM_EXPORT) throw new AppError('validation', `The team catalog holds more than ${MAX_TEAM_EXPORT} rasters: too many for one STAC export.`);
      after = page.next;
    } while (after !== null);
    return out;
  }

  private async available(raster: TeamRaster): Promise<boolean> {
    const share = this.deps.share;
    if (!share) return false;
    try {
      return (await stat(await share.resolve(raster.storagePath))).isFile();
    } catch {
      return false;
    }
  }

  private remember(raster: TeamRaster): void {
    this.seen.delete(raster.id);
    this.seen.set(raster.id, raster);
    if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.keys().next().value!);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.deps.outbox.deliverTo(null);
    await this.deps.outbox.close().catch(() => undefined);
    await this.catalog?.close().catch(() => undefined);
  }
}

function toWeb(body: Readable): ReadableStream<Uint8Array> {
  return NodeReadable.toWeb(body) as unknown as ReadableStream<Uint8Array>;
}

function parseCredentials(stored: string | null): TeamCredentials | null {
  if (!stored) return null;
  try {
    const v = JSON.parse(stored) as Partial<TeamCredentials>;
    return typeof v.role === 'string' && typeof v.password === 'string' ? { role: v.role, password: v.password } : null;
  } catch {
    return null;
  }
}

/** A teammate's file refused for not being its catalog row's bytes. */
function mismatch(raster: TeamRaster, file: string): AppError {
  return new AppError('io', `The team’s copy of ${teammateText(path.basename(file))} does not match its team catalog row ${raster.id} (size and sha256); it was not used.`);
}
