import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, openDatabase } from '../../../main/shared/database';
import { Keychain, MemoryKeychainBackend, ProfileStore } from '../../../main/profiles';
import { SecretRegistry } from '../../../main/platform/secrets';
import { LEDGER_KEEP_DAYS, SpendGuard, SpendStore, profileAccounts } from '../../../main/spend';

// The spend guard's budgets and ledger in swath.db: the old spend.json imported once,
// a month's total as a query, the 400-day pruning.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-spend-db-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-20T10:00:00Z');

describe('spend ledger in swath.db', () => {
  it('imports an old spend.json once, keeps it as spend.json.imported-<ms>, and a second start does not import it again', async () => {
    const text = JSON.stringify({
      version: 1,
      budgets: { p1: 50, p2: 7.5 },
      ledger: [
        { profileId: 'p1', at: '2026-11-02T08:00:00.000Z', costEur: 12.25, what: 'order' },
        { profileId: 'p1', at: '2026-10-31T23:00:00.000Z', costEur: 3, what: 'download' },
        { profileId: 'p2', at: '2026-11-03T08:00:00.000Z', costEur: 1, what: 'watch' },
      ],
    });
    writeFileSync(path.join(dir, 'spend.json'), text);
    const s = await SpendStore.open(dir, { now: () => T0 });
    // Its entries are the profiles' until the guard learns each profile's account.
    expect(s.legacyProfiles().sort()).toEqual(['p1', 'p2']);
    s.adopt('p1', 'a1');
    s.adopt('p2', 'a2');
    expect(s.legacyProfiles()).toEqual([]);
    expect([s.ownBudget('a1'), s.ownBudget('a2'), s.ownBudget('a3')]).toEqual([50, 7.5, null]);
    expect([s.ledgerSpend('a1', '2026-11'), s.ledgerSpend('a1', '2026-10'), s.ledgerSpend('a2', '2026-11')]).toEqual([12.25, 3, 1]);
    expect(existsSync(path.join(dir, 'spend.json'))).toBe(false);
    expect(readFileSync(path.join(dir, `spend.json.imported-${T0}`), 'utf8')).toBe(text);
    s.close();

    // The backup copied back (or a crash between the commit and the rename): the ledger is not counted twice.
    writeFileSync(path.join(dir, 'spend.json'), text);
    const again = await SpendStore.open(dir, { now: () => T0 + 1 });
    expect(again.legacyProfiles()).toEqual([]);
    expect(again.ledgerSpend('a1', '2026-11')).toBe(12.25);
    expect((await again.view('a1', 0, null)).spentEur).toBe(12.25);
    expect(existsSync(path.join(dir, `spend.json.imported-${T0 + 1}`))).toBe(true);
    again.close();
  });

  it('sets a spend.json it cannot read aside as .corrupt-<ms>, says so, and starts with no budget', async () => {
    const file = path.join(dir, 'spend.json');
    writeFileSync(file, '{"version":1,"budgets":{"p1":5');
    const warnings: string[] = [];
    const s = await SpendStore.open(dir, { now: () => T0, onWarning: (l) => warnings.push(l) });
    expect(s.ownBudget('p1')).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('not valid JSON');
    expect(warnings[0]).toContain(`moved to ${file}.corrupt-${T0}`);
    expect(readFileSync(`${file}.corrupt-${T0}`, 'utf8')).toBe('{"version":1,"budgets":{"p1":5');
    // The guard works on: a budget can be set and survives a restart.
    await s.setBudget('p1', 20);
    s.close();
    expect((await SpendStore.open(dir)).ownBudget('p1')).toBe(20);

    writeFileSync(file, JSON.stringify({ version: 1, budgets: { p1: -3 }, ledger: [] }));
    const other = await SpendStore.open(dir, { now: () => T0 + 5, onWarning: (l) => warnings.push(l) });
    expect(warnings.at(-1)).toContain('does not match the spend format: budgets.p1');
    expect(other.ownBudget('p1')).toBe(20);
  });

  it('totals a month from the first to the last millisecond, per account', async () => {
    let now = 0;
    const s = await SpendStore.open(dir, { now: () => now });
    const at = (iso: string, eur: number, account = 'p1') => {
      now = Date.parse(iso);
      return s.record(account, eur, iso);
    };
    await at('2026-10-31T23:59:59.999Z', 1);
    await at('2026-11-01T00:00:00.000Z', 2);
    await at('2026-11-15T12:00:00.000Z', 4, 'p2');
    await at('2026-11-30T23:59:59.999Z', 8);
    await at('2026-12-01T00:00:00.000Z', 16);
    await at('2026-12-31T23:59:59.999Z', 32);
    await at('2027-01-01T00:00:00.000Z', 64);
    expect(s.ledgerSpend('p1', '2026-10')).toBe(1);
    expect(s.ledgerSpend('p1', '2026-11')).toBe(10);
    expect(s.ledgerSpend('p2', '2026-11')).toBe(4);
    expect(s.ledgerSpend('p1', '2026-12')).toBe(48);
    expect(s.ledgerSpend('p1', '2027-01')).toBe(64);
    expect(s.ledgerSpend('p1', '2026-09')).toBe(0);
    // What `view` calls this month's spend, on either side of New Year.
    now = Date.parse('2026-12-31T23:59:59.999Z');
    expect((await s.view('p1', 0, null)).spentEur).toBe(48);
    now = Date.parse('2027-01-01T00:00:00.000Z');
    expect((await s.view('p1', 0, null)).spentEur).toBe(64);
  });

  it(`keeps ${LEDGER_KEEP_DAYS} days of ledger, every profile's, pruned as it records`, async () => {
    const { db } = await openDatabase({ dir });
    let now = Date.parse('2025-06-01T00:00:00.000Z');
    const s = await SpendStore.open(dir, { db, now: () => now });
    await s.record('p1', 1, 'oldest');
    now += DAY;
    await s.record('p2', 2, 'a day later');
    const rows = () => (db.prepare('SELECT what FROM spend_ledger ORDER BY at').all() as { what: string }[]).map((r) => r.what);
    // Exactly 400 days after the oldest: it is kept.
    now = Date.parse('2025-06-01T00:00:00.000Z') + LEDGER_KEEP_DAYS * DAY;
    await s.record('p1', 3, 'now');
    expect(rows()).toEqual(['oldest', 'a day later', 'now']);
    // A millisecond past that, it goes; the other profile's entry of a day later stays.
    now += 1;
    await s.record('p1', 4, 'then');
    expect(rows()).toEqual(['a day later', 'now', 'then']);
    expect(s.ledgerSpend('p1', '2025-06')).toBe(0);
    expect(s.ledgerSpend('p2', '2025-06')).toBe(2);
    db.close();
  });
});

describe('spend per account', () => {
  it('reads the keychain once per check: the account of a profile is its service and key, read together', async () => {
    let reads = 0;
    const backend = new (class extends MemoryKeychainBackend {
      override async getPassword(service: string, account: string): Promise<string | null> {
        reads++;
        return super.getPassword(service, account);
      }
    })();
    const profiles = await ProfileStore.open({ dir, demoKey: 'demo-test', secrets: new SecretRegistry(), keychain: new Keychain({ backend }) });
    const id = (await profiles.create({ name: 'One', baseUrl: 'https://imagery.example.org', key: 'sk-one-0123456789abcdef' })).id;
    const { db } = await openDatabase({ dir });
    const store = await SpendStore.open(dir, { db, now: () => T0 });
    const guard = new SpendGuard({ store, activeProfile: async () => id, account: profileAccounts(profiles), billing: async () => ({}) });
    const signal = AbortSignal.timeout(10_000);
    reads = 0;
    expect(await guard.verdict({ state: 'known', eur: 1 }, signal)).toMatchObject({ profileId: id, decision: 'ok' });
    expect(reads).toBe(1);
    reads = 0;
    await (await guard.clear({ state: 'known', eur: 1 }, 'This order', signal, { ask: false })).spent();
    expect(reads).toBe(1);
    db.close();
  });

  it('moves the entries and budgets a profile-keyed swath.db holds to each profile\'s account: one key, one month and the lower budget', async () => {
    const profiles = await ProfileStore.open({ dir, demoKey: 'demo-test', secrets: new SecretRegistry(), keychain: new Keychain({ backend: new MemoryKeychainBackend() }) });
    const shared = 'sk-shared-0123456789abcdef';
    const p1 = (await profiles.create({ name: 'One', baseUrl: 'https://imagery.example.org/', key: shared })).id;
    const p2 = (await profiles.create({ name: 'Two', baseUrl: 'https://imagery.example.org', key: shared })).id;
    const p3 = (await profiles.create({ name: 'Other key', baseUrl: 'https://imagery.example.org', key: 'sk-other-0123456789abcdef' })).id;
    // The database as the profile-keyed schema left it.
    const before = MIGRATIONS.findIndex((m) => m.name === 'spend per account');
    const old = (await openDatabase({ dir, migrations: MIGRATIONS.slice(0, before) })).db;
    const add = old.prepare('INSERT INTO spend_ledger (profile_id, at, cost_eur, what) VALUES (?, ?, ?, ?)');
    add.run(p1, '2026-11-02T08:00:00.000Z', 30, 'order');
    add.run(p2, '2026-11-03T08:00:00.000Z', 20, 'download');
    add.run(p3, '2026-11-04T08:00:00.000Z', 7, 'another account');
    old.prepare('INSERT INTO spend_budgets (profile_id, eur) VALUES (?, ?)').run(p1, 40);
    old.prepare('INSERT INTO spend_budgets (profile_id, eur) VALUES (?, ?)').run(p2, 60);
    old.close();

    const { db } = await openDatabase({ dir });
    const store = await SpendStore.open(dir, { db, now: () => T0 });
    let active = p2;
    const guard = new SpendGuard({ store, activeProfile: async () => active, account: profileAccounts(profiles), billing: async () => ({}) });
    const signal = AbortSignal.timeout(10_000);
    // The second profile's month holds the first's spend, and the lower of their budgets binds both.
    expect(await guard.verdict({ state: 'known', eur: 0 }, signal)).toMatchObject({ profileId: p2, spentEur: 50, budgetEur: 40, source: 'ledger' });
    active = p1;
    expect(await guard.verdict({ state: 'known', eur: 0 }, signal)).toMatchObject({ profileId: p1, spentEur: 50, budgetEur: 40 });
    active = p3;
    expect(await guard.verdict({ state: 'known', eur: 0 }, signal)).toMatchObject({ spentEur: 7, budgetEur: null });
    expect(store.legacyProfiles()).toEqual([]);
    // No row names the key.
    const text = JSON.stringify(db.prepare('SELECT * FROM spend_ledger').all()) + JSON.stringify(db.prepare('SELECT * FROM spend_account_budgets').all());
    expect(text).not.toContain(shared);
    expect(text).toContain('https://imagery.example.org key:');
    db.close();
  });
});

