import { readFile } from 'node:fs/promises';
import type { DatabaseSync } from 'node:sqlite';
import type { Emit } from '../platform/emit';
import type { Clock } from '../platform/clock';
import type { SecretRegistry } from '../platform/secrets';
import type { Policy } from '../policy';
import type { Keychain } from '../profiles';
import type { LibraryCatalog } from '../library';
import { AppError } from '../../common/errors.js';
import { TeamCatalog, TeamCatalogError } from './catalog';
import { ownershipQueryFor, purchaseKey, suggestedStoragePath, teamRasterInputFor } from './match';
import { RegistrationOutbox } from './outbox';
import { TeamLibrary, type TeamCatalogPort } from './service';
import { SharedStore } from './share';
import { RangeReader, TeamReadUrl } from './range-reader';

/** The largest CA file read (a PEM bundle of a few certificates is a few KB). */
const MAX_CA_BYTES = 1024 * 1024;

/** What the composition root hands the team library. */
export interface OpenTeamOptions {
  policy: Policy;
  db: DatabaseSync;
  keychain: Keychain;
  library: LibraryCatalog;
  emit: Emit;
  log: (line: string) => void;
  /** The app's secret registry (the catalog password is added; queue failures are masked against it). */
  secrets: SecretRegistry;
  /** The app's clock (the catalog's timestamps, the queue's backoff, the share's stale parts). */
  clock: Clock;
  downloadDir(): string;
}

/**
 * The team library from the admin policy: the catalog (with the analyst's keychain credentials),
 * the shared store and the durable registration queue. Off (every check answers "off") when the
 * policy names no catalog.
 */
export async function openTeamLibrary(o: OpenTeamOptions): Promise<TeamLibrary> {
  const p = o.policy;
  const config = { catalogUrl: p.teamCatalogUrl ?? null, sharePath: p.teamSharePath ?? null, readUrl: p.teamReadUrl ?? null };
  let caPem: string | null = null;
  if (config.catalogUrl && p.teamCatalogCa) {
    try {
      const buf = await readFile(p.teamCatalogCa);
      if (buf.length > MAX_CA_BYTES) throw new Error(`it is larger than ${MAX_CA_BYTES} bytes`);
      caPem = buf.toString('utf8');
    } catch (e) {
      // The connection then fails its certificate check, with the status line saying so.
      o.log(`team: the policy's teamCatalogCa ${p.teamCatalogCa} could not be read: ${(e as Error).message}`);
    }
  }
  let team: TeamLibrary | null = null;
  // The outbox sends to whichever catalog the analyst is signed in to; without one it keeps the queue and backs off.
  let target: TeamCatalog | null = null;
  const queue = new RegistrationOutbox({
    db: o.db,
    port: {
      register: (input, signal) => {
        if (!target) throw new AppError('io', 'Not signed in to the team catalog.');
        return target.register(input, signal);
      },
    },
    isRefusal: (e) => e instanceof AppError && e.kind === 'validation' && !(e instanceof TeamCatalogError && e.unreachable),
    redact: (text) => o.secrets.redactText(text),
    now: () => o.clock.now(),
    onStatus: () => {
      if (team) o.emit('team:status', team.status());
    },
  });
  const outbox = Object.assign(queue, {
    deliverTo(catalog: TeamCatalogPort | null): void {
      target = catalog as TeamCatalog | null;
      if (target) queue.retryNow();
    },
  });
  queue.start();
  const emitStatus = (): void => {
    // Back online: what waited in the queue goes now, not after the current backoff.
    if (target?.status().state === 'online') queue.retryNow();
    if (team) o.emit('team:status', team.status());
  };
  team = await TeamLibrary.open({
    config,
    keychain: o.keychain,
    openCatalog: (credentials): TeamCatalogPort => {
      const catalog = new TeamCatalog(config.catalogUrl!, credentials, {
        caPem,
        clock: o.clock,
        onStatus: emitStatus,
        onRefused: (r) => o.log(`team: catalog row ${r.id} was refused: ${r.reason}`),
      });
      // The status line learns at once whether the catalog answers.
      void catalog.check().catch(() => undefined);
      return catalog;
    },
    share: config.sharePath ? new SharedStore({ root: config.sharePath, now: () => o.clock.now() }) : null,
    reader: readerOf(config.readUrl, caPem, o.log),
    outbox,
    rules: { ownershipQueryFor, purchaseKey, teamRasterInputFor, storagePathFor: suggestedStoragePath },
    library: o.library,
    downloadDir: o.downloadDir,
    onStatus: (s) => o.emit('team:status', s),
    log: o.log,
    secrets: o.secrets,
    clock: o.clock,
  });
  return team;
}

/**
 * The read URL's reader: the team's CA (teamCatalogCa) is trusted on top of the system's, as an
 * organisation with its own CA serves both from it; a read URL the rules refuse (not https, a user
 * name in it) is logged and left unused.
 */
function readerOf(readUrl: string | null, caPem: string | null, log: (line: string) => void): TeamReadUrl | null {
  if (!readUrl) return null;
  try {
    return new TeamReadUrl(readUrl, new RangeReader({ caPem }));
  } catch (e) {
    log(`team: the policy's teamReadUrl is not used: ${(e as Error).message}`);
    return null;
  }
}
