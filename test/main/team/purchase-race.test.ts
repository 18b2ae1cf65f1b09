/**
 * The team library's purchase path against a real catalog (a throwaway PostgreSQL/PostGIS cluster) with two analysts:
 * alice's app (a real TeamLibrary with its share, library and registration queue) and bob, a teammate acting through
 * his own catalog connection. The interleavings are driven step by step: alice's catalog connection stops at her
 * claim until the test lets it go, and bob acts in between. Nothing here waits for time.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LibraryCatalog } from '../../../main/library/index.js';
import { systemClock } from '../../../main/platform/clock.js';
import { SecretRegistry } from '../../../main/platform/secrets.js';
import { openDatabase } from '../../../main/shared/database.js';
import { TeamCatalog } from '../../../main/team/catalog.js';
import { ownershipQueryFor, purchaseKey, suggestedStoragePath, teamRasterInputFor } from '../../../main/team/match.js';
import { RegistrationOutbox } from '../../../main/team/outbox.js';
import { TeamLibrary, TeamRefusal, type TeamCatalogPort } from '../../../main/team/service.js';
import { SharedStore } from '../../../main/team/share.js';
import type { OwnershipQuery, TeamRasterInput } from '../../../main/team/types.js';
import { tinyGeoTiff } from '../downloads/fixtures.js';
import { postgresAvailable, type TestCluster } from '../../support/postgres.js';
import { startTeam, type TestTeam } from '../../support/team.js';
import { entry } from './fixtures.js';

const never = () => new AbortController().signal;

/** alice's catalog connection: the real catalog, whose next claim can be stopped until the test lets it go. */
class SteppedCatalog implements TeamCatalogPort {
  readonly released: string[] = [];
  private stop: { reached: () => void; go: Promise<void> } | null = null;
  private releaseSeen: (() => void) | null = null;

  constructor(readonly real: TeamCatalog) {}

  /** The next claim stops before it reaches the catalog: `reached` resolves there, `go()` lets it on. */
  stopAtNextClaim(): { reached: Promise<void>; go: () => void } {
    let reached!: () => void;
    let go!: () => void;
    const at = new Promise<void>((resolve) => { reached = resolve; });
    this.stop = { reached, go: new Promise<void>((resolve) => { go = resolve; }) };
    return { reached: at, go };
  }

  /** Resolves at the next release asked of the catalog. */
  nextRelease(): Promise<void> {
    return new Promise((resolve) => { this.releaseSeen = resolve; });
  }

  findOwned: TeamCatalogPort['findOwned'] = (q, signal) => this.real.findOwned(q, signal);
  async claim(key: string, holder: string, ttlMs: number) {
    const stop = this.stop;
    this.stop = null;
    if (stop) {
      stop.reached();
      await stop.go;
    }
    return this.real.claim(key, holder, ttlMs);
  }
  release(key: string, holder: string) {
    this.released.push(key);
    this.releaseSeen?.();
    return this.real.release(key, holder);
  }
  list: TeamCatalogPort['list'] = (page, signal) => this.real.list(page, signal);
  standingClaim: TeamCatalogPort['standingClaim'] = (key, signal) => this.real.standingClaim(key, signal);
  waitForPurchase: TeamCatalogPort['waitForPurchase'] = (key, q, o) => this.real.waitForPurchase(key, q, o);
  status = () => this.real.status();
  check = (signal?: AbortSignal) => this.real.check(signal);
  migrate = (signal?: AbortSignal) => this.real.migrate(signal);
  close = () => this.real.close();
}

describe.skipIf(!postgresAvailable() && !process.env.CI)('purchases by two analysts on one team catalog, step by step', () => {
  let testTeam: TestTeam;
  let cluster: TestCluster;
  let bob: TeamCatalog;
  let work: string;
  let share: string;
  let db: DatabaseSync;
  let library: LibraryCatalog;
  let outbox: RegistrationOutbox;
  let alice: SteppedCatalog;
  let team: TeamLibrary;
  const log: string[] = [];
  let logWaiter: { pattern: RegExp; resolve: () => void } | null = null;
  let n = 0;

  beforeAll(async () => {
    testTeam = await startTeam(['bob']);
    cluster = testTeam.cluster;
    share = testTeam.share;
    bob = new TeamCatalog(cluster.url('bob'), { password: 'bob-password' });
    work = mkdtempSync(path.join(os.tmpdir(), 'swath-team-race-'));
    db = (await openDatabase({ dir: path.join(work, 'userData') })).db;
    library = await LibraryCatalog.open({ dir: path.join(work, 'userData'), db });
    let target: TeamCatalog | null = null;
    outbox = new RegistrationOutbox({ db, port: { register: (input, signal) => target!.register(input, signal) } });
    const credentials = JSON.stringify({ role: cluster.analyst.role, password: cluster.analyst.password });
    team = await TeamLibrary.open({
      config: { catalogUrl: `postgresql://${cluster.host}:${cluster.port}/${cluster.database}`, sharePath: share, readUrl: null },
      keychain: { get: async () => credentials, set: async () => undefined, delete: async () => true },
      openCatalog: (c) => {
        alice = new SteppedCatalog(new TeamCatalog(cluster.url(c.role), { password: c.password }));
        return alice;
      },
      share: new SharedStore({ root: share }),
      reader: null,
      outbox: Object.assign(outbox, { deliverTo: (c: TeamCatalogPort | null) => { target = c ? (c as SteppedCatalog).real : null; } }),
      rules: { ownershipQueryFor, purchaseKey, teamRasterInputFor, storagePathFor: suggestedStoragePath },
      library,
      downloadDir: () => path.join(work, 'downloads'),
      onStatus: () => undefined,
      log: (line) => {
        log.push(line);
        if (logWaiter && logWaiter.pattern.test(line)) logWaiter.resolve();
      },
      secrets: new SecretRegistry(),
      clock: systemClock,
    });
  });
  afterAll(async () => {
    await team?.close();
    await library?.close();
    if (db?.isOpen) db.close();
    await bob?.close();
    await testTeam?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });
  beforeEach(() => {
    log.length = 0;
    alice.released.length = 0;
  });

  /** A composite request of a day of its own, its ownership query and purchase key. */
  function request(): { request: Record<string, unknown>; query: OwnershipQuery; key: string; date: string } {
    n++;
    const date = `2026-10-${String(n).padStart(2, '0')}`;
    const req = { ...(entry().request as Record<string, unknown>), Date: date };
    const query = ownershipQueryFor('composite', req).query!;
    return { request: req, query, key: purchaseKey(query), date };
  }

  /** bob's copy of `date` on the share and its registration (not sent yet): a real GeoTIFF at the documented place. */
  async function bobsCopy(date: string, req: Record<string, unknown>): Promise<{ input: TeamRasterInput; file: string }> {
    const bytes = tinyGeoTiff({ seed: n });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const e = entry({ id: `bob-${n}`, path: `/home/bob/Swath/composite_${date.replace(/-/g, '')}_Stratus2.tif`, size: bytes.length, sha256, date, request: req });
    const storagePath = suggestedStoragePath(e);
    const file = path.join(share, ...storagePath.split('/'));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, bytes);
    return { input: teamRasterInputFor(e, storagePath, 'bob', 0.38), file };
  }

  it('a watch date bob registers and releases between alice\'s look and her claim: alice uses his copy, and says where it came from', async () => {
    const { request: req, key, date } = request();
    expect(await bob.claim(key, 'bob', 60_000)).toMatchObject({ mine: true });
    const stop = alice.stopAtNextClaim();
    const watching = team.forWatch(req, never());
    // alice looked (nothing registered yet) and is about to claim.
    await stop.reached;
    const copy = await bobsCopy(date, req);
    const row = (await bob.register(copy.input)).raster;
    expect(await bob.release(key, 'bob')).toBe(true);
    stop.go();

    const result = await watching;
    expect(result).toMatchObject({ kind: 'owned', note: `The team’s copy (team catalog row ${row.id}, bought by bob on ${row.acquiredAt.slice(0, 10)}); 0 EUR.` });
    if (result.kind !== 'owned') return;
    expect(result.path).toBe(copy.file);
    expect(library.get(result.libraryId)).toMatchObject({ sha256: row.sha256, size: row.size });
    // The claim she was granted to look again under is given back.
    expect(await bob.standingClaim(key)).toBeNull();
  });

  it('a download bob registers and releases between alice\'s look and her claim: alice is refused, pointed to his copy', async () => {
    const { request: req, key, date } = request();
    expect(await bob.claim(key, 'bob', 60_000)).toMatchObject({ mine: true });
    const stop = alice.stopAtNextClaim();
    const buying = team.beforePurchase('composite', req, false, never()).then((p) => p, (e: unknown) => e);
    await stop.reached;
    const copy = await bobsCopy(date, req);
    await bob.register(copy.input);
    await bob.release(key, 'bob');
    stop.go();

    const refusal = await buying;
    expect(refusal).toBeInstanceOf(TeamRefusal);
    expect((refusal as Error).message).toMatch(/^The team already owns this: bought by bob on /);
    expect(await bob.standingClaim(key)).toBeNull();
  });

  it('a purchase whose copy could not be shared keeps its claim, so bob waits rather than buys it again', async () => {
    const { request: req, key } = request();
    const purchase = await team.beforePurchase('composite', req, false, never());
    expect(await bob.standingClaim(key)).toMatchObject({ holder: cluster.analyst.role });
    const released = alice.nextRelease().then(() => 'released');
    const kept = new Promise<string>((resolve) => { logWaiter = { pattern: /kept until it lapses/, resolve: () => resolve('kept') }; });
    // The download finished, but the library has no such entry to copy (its hash never came).
    purchase.done('no-such-entry', 0.38);
    expect(await Promise.race([released, kept])).toBe('kept');
    expect(alice.released).toEqual([]);
    expect(await bob.claim(key, 'bob', 60_000)).toMatchObject({ mine: false, holder: cluster.analyst.role });
    expect(log.join('\n')).toMatch(/no-such-entry could not be shared with the team: the library has no sha256 of it/);
  });

  it('a finished purchase is filed in the share by the documented layout, registered in alice\'s name, and only then its claim ends', async () => {
    const { request: req, key, date } = request();
    const purchase = await team.beforePurchase('composite', req, false, never());
    const file = path.join(work, 'alice', `composite_${date.replace(/-/g, '')}_Stratus2_32633_10m.tif`);
    await mkdir(path.dirname(file), { recursive: true });
    const bytes = tinyGeoTiff({ seed: 5000 + n });
    await writeFile(file, bytes);
    // The test file carries no acquisition date: `<kind>/undated/<name>`, as the layout files a dateless raster.
    const downloaded = await library.addDownload({ path: file, size: bytes.length, sha256: null, kind: 'composite', request: req }, never());
    const released = alice.nextRelease();
    purchase.done(downloaded.id, 0.38);
    await released;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const found = (await bob.list({ limit: 500 })).rasters.find((r) => r.sha256 === sha256);
    expect(found).toMatchObject({
      storagePath: `composite/undated/${path.basename(file)}`, acquiredBy: cluster.analyst.role, costEur: 0.38,
    });
    expect(await readFile(path.join(share, 'composite', 'undated', path.basename(file)))).toEqual(bytes);
    expect(alice.released).toEqual([key]);
  });

  it('a copy on the share that is not its row\'s bytes never enters the library', async () => {
    const { request: req, date } = request();
    const copy = await bobsCopy(date, req);
    const row = (await bob.register(copy.input)).raster;
    // Someone replaced the file on the share after it was registered.
    await writeFile(copy.file, tinyGeoTiff({ seed: 9999 }));
    const result = await team.forWatch(req, never());
    expect(result).toMatchObject({ kind: 'wait', note: expect.stringMatching(new RegExp(`does not match its team catalog row ${row.id} \\(size and sha256\\); it was not used`)) });
    expect(library.list().filter((e) => e.path === copy.file)).toEqual([]);
  });

  it('a copy into the download folder leaves files and .parts already there alone and publishes beside them', async () => {
    const { request: req, date } = request();
    const copy = await bobsCopy(date, req);
    await bob.register(copy.input);
    const [row] = (await team.check('composite', req, never())).matches;
    const downloads = path.join(work, 'downloads');
    await mkdir(downloads, { recursive: true });
    const name = path.basename(copy.file);
    const next = `${name.replace(/\.tif$/, '')} (1).tif`;
    // A download finished before under the name, and one in flight under the next (its .part, as the queue reserves it).
    await writeFile(path.join(downloads, name), 'a finished download');
    await writeFile(path.join(downloads, `${next}.part`), 'a download in flight');
    const used = await team.useCopy(row!.id, 'copy', never());
    expect(path.basename(used.path)).toBe(next);
    expect(await readFile(path.join(downloads, `${next}.part`), 'utf8')).toBe('a download in flight');
    expect(await readFile(path.join(downloads, name), 'utf8')).toBe('a finished download');
    expect(createHash('sha256').update(await readFile(used.path)).digest('hex')).toBe(copy.input.sha256);
    expect((await readdir(downloads)).sort()).toEqual([name, next, `${next}.part`].sort());
  });
});
