import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../common/errors.js';
import { toIpcError } from '../../../main/ipc/errors.js';
import {
  DEMO_PROFILE_ID,
  DEMO_PROFILE_NAME,
  Keychain,
  KeychainError,
  MemoryKeychainBackend,
  PROFILES_FILE_NAME,
  ProfileStore,
  type KeychainBackend,
  type KeyProbe,
} from '../../../main/profiles/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/index.js';
import { fetchAccountInfoProbe, readAllFiles, tempDir } from './helpers.js';
import { SecretRegistry } from '../../../main/platform/secrets';

const SERVICE = 'Swath-unit';
const KEY = 'sk-live-7b1e0c55d9a94f3a';

let dir: string;
let backend: MemoryKeychainBackend;
let logs: string[];

async function openStore(options: { backend?: KeychainBackend; dir?: string } = {}): Promise<ProfileStore> {
  return ProfileStore.open({
    dir: options.dir ?? dir,
    demoKey: 'demo-key',
    secrets: new SecretRegistry(),
    keychain: new Keychain({ backend: options.backend ?? backend, service: SERVICE, platform: 'linux', env: {} }),
    log: (line) => logs.push(line),
  });
}

/** Runs `work` and returns what it threw, failing the test when it did not throw. */
async function rejection(work: Promise<unknown>): Promise<AppError> {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a rejection');
}

function profilesFile(): any {
  return JSON.parse(readFileSync(path.join(dir, PROFILES_FILE_NAME), 'utf8'));
}

beforeEach(() => {
  dir = tempDir();
  backend = new MemoryKeychainBackend();
  logs = [];
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('validation', () => {
  it('requires a name', async () => {
    const store = await openStore();
    for (const name of ['', '   ']) {
      const error = await rejection(store.create({ name, baseUrl: 'https://imagery.example.com' }));
      expect(error.kind).toBe('validation');
      expect(error.fields).toEqual({ name: ['Name is required.'] });
    }
  });

  it('refuses duplicate names, case-insensitively, including the demo name', async () => {
    const store = await openStore();
    await store.create({ name: 'Production', baseUrl: 'https://imagery.example.com' });
    const dup = await rejection(store.create({ name: ' production ', baseUrl: 'https://other.example.com' }));
    expect(dup.fields?.name?.[0]).toMatch(/already exists/);
    const demo = await rejection(store.create({ name: DEMO_PROFILE_NAME, baseUrl: 'https://other.example.com' }));
    expect(demo.fields?.name?.[0]).toMatch(/already exists/);
  });

  it.each([
    ['', /required/],
    ['imagery.example.com', /absolute URL/],
    ['/api', /absolute URL/],
    ['ftp://imagery.example.com', /http:\/\/ or https:\/\/.*ftp:/],
    ['file:///etc/passwd', /http:\/\/ or https:\/\//],
    ['https://user:secret@imagery.example.com', /user name or password/],
    ['https://token@imagery.example.com', /user name or password/],
    ['https://imagery.example.com/?tenant=1', /query string/],
    ['https://imagery.example.com/#top', /fragment/],
  ])('rejects the base URL %j with a reason', async (baseUrl, reason) => {
    const store = await openStore();
    const error = await rejection(store.create({ name: 'P', baseUrl }));
    expect(error.kind).toBe('validation');
    expect(Object.keys(error.fields ?? {})).toEqual(['baseUrl']);
    expect(error.fields?.baseUrl?.join(' ')).toMatch(reason);
    // The reason reaches the renderer unchanged.
    expect(toIpcError(error)).toEqual({ kind: 'validation', message: expect.any(String), fields: error.fields });
  });

  it.each([
    ['https://Imagery.Example.COM', 'https://imagery.example.com'],
    ['https://imagery.example.com/', 'https://imagery.example.com'],
    ['  https://imagery.example.com/svc///  ', 'https://imagery.example.com/svc'],
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080'],
    ['http://localhost:9000', 'http://localhost:9000'],
  ])('normalises the base URL %j to %j', async (input, expected) => {
    const store = await openStore();
    const created = await store.create({ name: 'P', baseUrl: input });
    expect(created.baseUrl).toBe(expected);
  });

  it.each([
    ['', /required/],
    ['   ', /blank/],
    ['abc\ndef', /single line.*line break/],
    ['abcdef\r\n', /line break/],
    ['abc\tdef', /control characters/],
    [' abcdef', /start or end with a space/],
    ['clé-secrète', /ASCII/],
    ['x'.repeat(1025), /at most 1024/],
  ])('rejects the key %j with a reason that does not echo it', async (key, reason) => {
    const store = await openStore();
    const created = await store.create({ name: 'P', baseUrl: 'https://imagery.example.com' });
    const error = await rejection(store.setKey(created.id, key));
    expect(error.kind).toBe('validation');
    expect(error.fields?.key?.join(' ')).toMatch(reason);
    if (key.trim().length > 3) expect(JSON.stringify(toIpcError(error))).not.toContain(key.trim());
    expect(backend.entries.size).toBe(0);
  });

  it('refuses plain http to a remote host, because the key would travel unencrypted', async () => {
    const store = await openStore();
    const error = await rejection(store.create({ name: 'P', baseUrl: 'http://imagery.example.com' }));
    expect(error.fields?.baseUrl?.join(' ')).toMatch(/https:\/\/.*unencrypted/);
  });

  it('reports every invalid field at once and stores nothing', async () => {
    const store = await openStore();
    const error = await rejection(store.create({ name: '', baseUrl: 'ftp://x', key: 'a\nb' }));
    expect(Object.keys(error.fields ?? {}).sort()).toEqual(['baseUrl', 'key', 'name']);
    expect(backend.entries.size).toBe(0);
    expect(existsSync(path.join(dir, PROFILES_FILE_NAME))).toBe(false);
  });

  it('answers an unknown profile id with not-found', async () => {
    const store = await openStore();
    for (const work of [store.get('nope'), store.setKey('nope', KEY), store.delete('nope'), store.setActive('nope'), store.getKey('nope')]) {
      expect((await rejection(work)).kind).toBe('not-found');
    }
  });
});

describe('keys', () => {
  it('keeps the key only in the keychain, under the profile id', async () => {
    const store = await openStore();
    const created = await store.create({ name: 'Production', baseUrl: 'https://imagery.example.com', key: KEY });
    expect(backend.entries.get(`${SERVICE}\0${created.id}`)).toBe(KEY);
    for (const { file, text } of readAllFiles(dir)) expect(text, file).not.toContain(KEY);
    expect(JSON.stringify(await store.list())).not.toContain(KEY);
    expect(await store.getKey(created.id)).toBe(KEY);
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('shows only keySet and the last 4 characters', async () => {
    const store = await openStore();
    const created = await store.create({ name: 'P', baseUrl: 'https://imagery.example.com' });
    expect(created).toMatchObject({ keySet: false, keyLast4: null });
    const withKey = await store.setKey(created.id, KEY);
    expect(withKey).toEqual({
      id: created.id, name: 'P', baseUrl: 'https://imagery.example.com', builtIn: false, active: false, keySet: true, keyLast4: '4f3a',
      keyOrigin: 'https://imagery.example.com', keyNeedsConfirm: false,
    });
    expect(Object.keys(withKey).sort()).toEqual(['active', 'baseUrl', 'builtIn', 'id', 'keyLast4', 'keyNeedsConfirm', 'keyOrigin', 'keySet', 'name']);
  });

  it('reveals nothing of a key shorter than 8 characters', async () => {
    const store = await openStore();
    const created = await store.create({ name: 'P', baseUrl: 'https://imagery.example.com', key: 'abc1234' });
    expect(created).toMatchObject({ keySet: true, keyLast4: null });
  });

  it('replaces and deletes a key', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: 'https://imagery.example.com', key: KEY });
    expect((await store.setKey(id, 'second-key-0000-9999')).keyLast4).toBe('9999');
    expect(await store.getKey(id)).toBe('second-key-0000-9999');
    expect(await store.deleteKey(id)).toMatchObject({ keySet: false, keyLast4: null });
    expect(await store.getKey(id)).toBeNull();
    expect(backend.entries.size).toBe(0);
    expect(profilesFile().profiles[0].keyStored).toBe(false);
  });

  it('keeps the key when the profile is renamed or moved to another URL, but withholds it from a new origin', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: 'https://a.example.com', key: KEY });
    const renamed = await store.update(id, { name: 'Q', baseUrl: 'https://a.example.com/v2' });
    expect(renamed).toMatchObject({ name: 'Q', keySet: true, keyLast4: '4f3a', keyOrigin: 'https://a.example.com', keyNeedsConfirm: false });
    expect(await store.getKey(id)).toBe(KEY);
    const moved = await store.update(id, { baseUrl: 'https://b.example.com/' });
    expect(moved).toMatchObject({ baseUrl: 'https://b.example.com', keySet: true, keyLast4: '4f3a', keyOrigin: 'https://a.example.com', keyNeedsConfirm: true });
    await expect(store.getKey(id)).rejects.toMatchObject({ name: 'KeyOriginError', kind: 'auth' });
    expect((await store.setKey(id, KEY)).keyNeedsConfirm).toBe(false);
    expect(await store.getKey(id)).toBe(KEY);
  });

  it('notices a key removed outside Swath and heals the metadata', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: 'https://a.example.com', key: KEY });
    backend.entries.clear();
    const listing = await store.list();
    expect(listing.keychainError).toBeNull();
    expect(listing.profiles[1]).toMatchObject({ id, keySet: false, keyLast4: null });
    expect(profilesFile().profiles[0].keyStored).toBe(false);
  });
});

describe('the demo profile', () => {
  it('is listed first, active by default, with the app-supplied key and no keychain entry', async () => {
    const store = await openStore();
    const listing = await store.list();
    expect(listing.activeProfileId).toBe(DEMO_PROFILE_ID);
    expect(listing.profiles).toEqual([
      { id: 'demo', name: 'Demo service (offline)', baseUrl: null, builtIn: true, active: true, keySet: true, keyLast4: null, keyOrigin: null, keyNeedsConfirm: false },
    ]);
    store.setDemoBaseUrl('http://127.0.0.1:40123/');
    expect((await store.get(DEMO_PROFILE_ID)).baseUrl).toBe('http://127.0.0.1:40123');
    expect(await store.getKey(DEMO_PROFILE_ID)).toBe('demo-key');
    expect(backend.entries.size).toBe(0);
  });

  it('cannot be edited, deleted or given a key', async () => {
    const store = await openStore();
    for (const work of [
      store.update(DEMO_PROFILE_ID, { name: 'Mine' }),
      store.delete(DEMO_PROFILE_ID),
      store.setKey(DEMO_PROFILE_ID, KEY),
      store.deleteKey(DEMO_PROFILE_ID),
    ]) {
      const error = await rejection(work);
      expect(error.kind).toBe('validation');
      expect(error.message).toMatch(/built in/);
    }
    expect(backend.entries.size).toBe(0);
  });

  it('hidden (the policy hides the demo service): not listed, and every operation a window asks on it is refused as unknown; main still reads it', async () => {
    const store = await openStore();
    store.setDemoBaseUrl('http://127.0.0.1:40123/');
    store.hideDemo();
    const probed: string[] = [];
    const probe: KeyProbe = async ({ baseUrl }) => (probed.push(baseUrl), { status: 'ok' });
    expect((await store.list()).profiles).toEqual([]);
    for (const work of [
      store.testKey(DEMO_PROFILE_ID, probe),
      store.shown(DEMO_PROFILE_ID),
      store.update(DEMO_PROFILE_ID, { name: 'Mine' }),
      store.delete(DEMO_PROFILE_ID),
      store.setActive(DEMO_PROFILE_ID),
      store.setKey(DEMO_PROFILE_ID, KEY),
      store.deleteKey(DEMO_PROFILE_ID),
      store.confirmKeyOrigin(DEMO_PROFILE_ID, 'http://127.0.0.1:40123'),
    ]) {
      const error = await rejection(work);
      expect([error.kind, error.message]).toEqual(['not-found', 'No such profile.']);
    }
    // The key test never reached the hidden service.
    expect(probed).toEqual([]);
    // Main's own reads still see it: with no other profile it stays the one the app connects to.
    expect((await store.getActive()).id).toBe(DEMO_PROFILE_ID);
    expect(await store.getKey(DEMO_PROFILE_ID)).toBe('demo-key');
  });

  it('can be made active again', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: 'https://a.example.com' });
    expect((await store.setActive(id)).active).toBe(true);
    expect((await store.getActive()).id).toBe(id);
    expect((await store.setActive(DEMO_PROFILE_ID)).active).toBe(true);
    expect((await store.list()).activeProfileId).toBe(DEMO_PROFILE_ID);
  });
});

describe('deleting a profile', () => {
  it('deletes its key too and falls back to the demo profile when it was active', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: 'https://a.example.com', key: KEY });
    const other = await store.create({ name: 'Q', baseUrl: 'https://b.example.com', key: 'other-key-1234' });
    await store.setActive(id);
    await store.delete(id);
    expect(backend.entries.has(`${SERVICE}\0${id}`)).toBe(false);
    expect(backend.entries.has(`${SERVICE}\0${other.id}`)).toBe(true);
    const listing = await store.list();
    expect(listing.activeProfileId).toBe(DEMO_PROFILE_ID);
    expect(listing.profiles.map((p) => p.id)).toEqual([DEMO_PROFILE_ID, other.id]);
    expect((await store.getActive()).id).toBe(DEMO_PROFILE_ID);
  });

  it('keeps a profile whose key cannot be removed, so the key is never orphaned', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: 'https://a.example.com', key: KEY });
    backend.failWith = new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
    const error = await rejection(store.delete(id));
    expect(error).toBeInstanceOf(KeychainError);
    backend.failWith = undefined;
    expect((await store.list()).profiles.map((p) => p.id)).toContain(id);
  });

  it('lets a profile that never had a key go while the keychain is broken', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: 'https://a.example.com' });
    backend.failWith = new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
    await store.delete(id);
    expect(profilesFile().profiles).toEqual([]);
  });
});

describe('persistence', () => {
  it('survives a restart, with metadata only', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'Production', baseUrl: 'https://imagery.example.com', key: KEY });
    await store.setActive(id);
    const reopened = await openStore();
    const listing = await reopened.list();
    expect(listing.activeProfileId).toBe(id);
    expect(listing.profiles[1]).toMatchObject({ id, name: 'Production', keySet: true, keyLast4: '4f3a', active: true });
    const file = profilesFile();
    expect(file).toMatchObject({ version: 1, activeProfileId: id });
    expect(Object.keys(file.profiles[0]).sort()).toEqual(['baseUrl', 'createdAt', 'id', 'keyOrigin', 'keyStored', 'name', 'updatedAt']);
  });

  it('writes through a temporary file and leaves none behind', async () => {
    const store = await openStore();
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.create({ name: `P${i}`, baseUrl: 'https://a.example.com' })));
    expect(readdirSync(dir)).toEqual([PROFILES_FILE_NAME]);
    expect(profilesFile().profiles).toHaveLength(20);
  });

  it('cleans temporary files a crash left behind, and ignores them', async () => {
    const store = await openStore();
    await store.create({ name: 'P', baseUrl: 'https://a.example.com' });
    writeFileSync(path.join(dir, `.${PROFILES_FILE_NAME}.999-deadbeef.tmp`), '{"version":1,"activ');
    const reopened = await openStore();
    expect((await reopened.list()).profiles.map((p) => p.name)).toEqual([DEMO_PROFILE_NAME, 'P']);
    expect(readdirSync(dir)).toEqual([PROFILES_FILE_NAME]);
  });

  it('moves an unreadable file aside instead of overwriting it', async () => {
    writeFileSync(path.join(dir, PROFILES_FILE_NAME), '{ not json');
    const store = await openStore();
    expect((await store.list()).profiles).toHaveLength(1);
    const aside = readdirSync(dir).filter((name) => name.startsWith(`${PROFILES_FILE_NAME}.corrupt-`));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(dir, aside[0]!), 'utf8')).toBe('{ not json');
    expect(logs.join('\n')).toMatch(/unreadable/);
  });

  it('leaves memory, file and keychain unchanged when the write fails', async () => {
    const store = await openStore();
    await store.create({ name: 'P', baseUrl: 'https://a.example.com' });
    const before = readFileSync(path.join(dir, PROFILES_FILE_NAME), 'utf8');
    // A directory where the temp file would be renamed to makes the rename fail.
    rmSync(path.join(dir, PROFILES_FILE_NAME));
    mkdirSync(path.join(dir, PROFILES_FILE_NAME));
    await expect(store.create({ name: 'Q', baseUrl: 'https://b.example.com', key: KEY })).rejects.toThrow();
    expect(backend.entries.size).toBe(0);
    expect((await store.list()).profiles.map((p) => p.name)).toEqual([DEMO_PROFILE_NAME, 'P']);
    expect(readdirSync(dir)).toEqual([PROFILES_FILE_NAME]);
    rmSync(path.join(dir, PROFILES_FILE_NAME), { recursive: true });
    writeFileSync(path.join(dir, PROFILES_FILE_NAME), before);
  });
});

describe('an unavailable keychain', () => {
  it('rejects setKey with a keychain error that never contains the key', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: 'https://a.example.com' });
    // A backend that echoes the secret is the worst case the scrubber has to handle.
    backend.failWith = new Error(`Cannot create an item in a locked collection (while storing ${KEY})`);
    const error = await rejection(store.setKey(id, KEY));
    expect(error).toBeInstanceOf(KeychainError);
    expect(error.kind).toBe('keychain');
    expect((error as KeychainError).problem).toBe('locked');
    expect(error.message).toMatch(/^The keyring is locked: unlock the login keyring/);
    expect(JSON.stringify({ ...toIpcError(error), detail: (error as KeychainError).detail, stack: error.stack })).not.toContain(KEY);
    expect(profilesFile().profiles[0].keyStored).toBe(false);
  });

  it('still lists profiles from metadata and says why the keychain failed', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: 'https://a.example.com', key: KEY });
    backend.failWith = new Error('The name org.freedesktop.secrets was not provided by any .service files');
    const listing = await store.list();
    expect(listing.keychainError).toEqual({ problem: 'no-secret-service', message: expect.stringMatching(/^No Secret Service: /) });
    expect(listing.profiles[1]).toMatchObject({ id, keySet: true, keyLast4: null });
    await expect(store.getKey(id)).rejects.toBeInstanceOf(KeychainError);
  });

  it('turns a silently locked keyring (reads answer "no key") into a locked error', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: 'https://a.example.com', key: KEY });
    // What libsecret does with a locked login collection when no unlock prompt can be shown.
    const locked: KeychainBackend = {
      getPassword: async () => null,
      deletePassword: async () => false,
      setPassword: async () => {
        throw new Error('Cannot create an item in a locked collection');
      },
    };
    const lockedStore = await openStore({ backend: locked });
    const listing = await lockedStore.list();
    expect(listing.keychainError?.problem).toBe('locked');
    expect(listing.profiles[1]).toMatchObject({ id, keySet: true, keyLast4: null });
    await expect(lockedStore.getKey(id)).rejects.toMatchObject({ kind: 'keychain', problem: 'locked' });
    await expect(lockedStore.deleteKey(id)).rejects.toMatchObject({ kind: 'keychain', problem: 'locked' });
    // Nothing was "healed" into believing the key is gone.
    expect(profilesFile().profiles[0].keyStored).toBe(true);
    expect(await store.getKey(id)).toBe(KEY);
  });
});

describe('testKey against the simulator', () => {
  let sim: RunningSimulator;
  let simDir: string;

  beforeAll(async () => {
    simDir = tempDir('swath-keychain-sim-');
    sim = await startSimulator({ port: 0, cacheDir: path.join(simDir, 'cache') });
  });

  afterAll(async () => {
    await sim.close();
    rmSync(simDir, { recursive: true, force: true });
  });

  it('accepts demo-key, and reports 403 for a revoked key and 401 for an unknown one', async () => {
    const store = await openStore();
    store.setDemoBaseUrl(sim.url);
    expect(await store.testKey(DEMO_PROFILE_ID, fetchAccountInfoProbe)).toEqual({ status: 'ok', message: 'The service accepted the key.' });
    const revoked = await store.create({ name: 'Revoked', baseUrl: sim.url, key: 'demo-key-revoked' });
    expect(await store.testKey(revoked.id, fetchAccountInfoProbe)).toEqual({
      status: 'auth', httpStatus: 403, message: 'The service rejected the key (HTTP 403): The API key has been revoked.',
    });
    const unknown = await store.create({ name: 'Unknown', baseUrl: sim.url, key: KEY });
    expect(await store.testKey(unknown.id, fetchAccountInfoProbe)).toMatchObject({ status: 'auth', httpStatus: 401 });
  });

  it('reports a network error for a closed port', async () => {
    const closed = await startSimulator({ port: 0, cacheDir: path.join(simDir, 'cache2') });
    await closed.close();
    const store = await openStore();
    const { id } = await store.create({ name: 'Gone', baseUrl: closed.url, key: KEY });
    const result = await store.testKey(id, fetchAccountInfoProbe);
    expect(result.status).toBe('network');
    expect(result.message).toContain(closed.url);
    expect(result.message).toMatch(/ECONNREFUSED/);
  });

  it('never puts the key in the result, even when the probe echoes it', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: sim.url, key: KEY });
    const echo: KeyProbe = async ({ key }) => ({ status: 'auth', httpStatus: 401, message: `key ${key} is unknown` });
    const thrower: KeyProbe = async ({ key }) => {
      throw new Error(`socket hang up for ${key}`);
    };
    expect(JSON.stringify(await store.testKey(id, echo))).not.toContain(KEY);
    expect(JSON.stringify(await store.testKey(id, thrower))).not.toContain(KEY);
  });

  it('times out a probe that never answers, and honours cancellation', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: sim.url, key: KEY });
    const hang: KeyProbe = ({ signal }) =>
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    expect(await store.testKey(id, hang, { timeoutMs: 50 })).toMatchObject({ status: 'network', message: expect.stringMatching(/did not answer/) });
    const controller = new AbortController();
    const pending = store.testKey(id, hang, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it('asks for a key first when none is set', async () => {
    const store = await openStore();
    const { id } = await store.create({ name: 'P', baseUrl: sim.url });
    const error = await rejection(store.testKey(id, fetchAccountInfoProbe));
    expect(error).toMatchObject({ kind: 'validation', fields: { key: ['No API key is set.'] } });
  });
});
