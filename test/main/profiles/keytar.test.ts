/**
 * The keychain against a real OS keychain through real keytar. On Linux this needs a D-Bus
 * session with an unlocked Secret Service, as CI provides:
 *   HOME=$(mktemp -d) dbus-run-session -- sh -c 'echo -n test | gnome-keyring-daemon --unlock --components=secrets >/dev/null; npx vitest run test/main/profiles'
 * Without one these tests are skipped (with the reason printed), except under CI, where they fail.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_PROFILE_ID,
  Keychain,
  KeychainError,
  ProfileStore,
  classifyKeychainError,
  createKeytarBackend,
} from '../../../main/profiles/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/index.js';
import { fetchAccountInfoProbe, readAllFiles, tempDir } from './helpers.js';
import { SecretRegistry } from '../../../main/platform/secrets';

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./fixtures/keychain-child.ts', import.meta.url));
const IN_CI = Boolean(process.env.CI);
const SERVICE = `Swath-test-${randomBytes(4).toString('hex')}`;
const backend = createKeytarBackend();
const usedAccounts = new Set<string>();

/** A key that cannot collide with anything else in the keychain. */
function uniqueKey(): string {
  return `sk-test-${randomBytes(12).toString('hex')}`;
}

// Decided before the tests are collected, so `it.skipIf` can use it.
const availability: { ok: true } | { ok: false; reason: string } = await new Keychain({ service: SERVICE })
  .check()
  .then(() => ({ ok: true as const }))
  .catch((error: unknown) => ({ ok: false as const, reason: error instanceof Error ? error.message : String(error) }));
if (!availability.ok && !IN_CI) {
  console.warn(`[keychain] skipping the real keychain tests: ${availability.reason}`);
}
const itReal = it.skipIf(!availability.ok && !IN_CI);

async function which(command: string): Promise<boolean> {
  return execFileAsync('sh', ['-c', `command -v ${command}`]).then(() => true, () => false);
}
const sessionTools = process.platform === 'linux'
  && (await which('dbus-run-session')) && (await which('gnome-keyring-daemon')) && (await which('dbus-send'));
if (process.platform === 'linux' && !sessionTools && !IN_CI) {
  console.warn('[keychain] skipping the isolated-session tests: dbus-run-session, gnome-keyring-daemon or dbus-send is missing (apt-get install dbus gnome-keyring)');
}
const itSession = it.skipIf(process.platform !== 'linux' || (!sessionTools && !IN_CI));

/** Runs the child fixture under `node --import tsx` and parses the JSON line it prints. */
async function child(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<any> {
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: ROOT, env, timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

/** An environment with no D-Bus session, no display and a private HOME and runtime dir. */
function isolatedEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'DBUS_STARTER_ADDRESS', 'DBUS_STARTER_BUS_TYPE', 'DISPLAY', 'WAYLAND_DISPLAY', 'GNOME_KEYRING_CONTROL']) {
    delete env[name];
  }
  const runtime = path.join(home, 'run');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  // A fresh XDG_RUNTIME_DIR has no `bus` socket (GLib's fallback) and no gnome-keyring control socket of the outer session.
  return { ...env, HOME: home, XDG_RUNTIME_DIR: runtime };
}

describe('the real keychain', () => {
  let dir: string;
  let sim: RunningSimulator;

  beforeAll(async () => {
    dir = tempDir();
    sim = await startSimulator({ port: 0, cacheDir: path.join(dir, 'sim-cache') });
  });

  afterAll(async () => {
    await sim?.close();
    if (availability.ok) {
      for (const account of usedAccounts) await backend.deletePassword(SERVICE, account).catch(() => false);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('is available (required when CI is set)', (context) => {
    if (!availability.ok) {
      if (IN_CI) expect.fail(`CI must exercise the real keychain, but it is unavailable: ${availability.reason}`);
      context.skip();
    }
  });

  itReal('stores, reads, replaces and deletes a secret through keytar', async () => {
    const keychain = new Keychain({ service: SERVICE });
    const account = `roundtrip-${randomBytes(4).toString('hex')}`;
    usedAccounts.add(account);
    const first = uniqueKey();
    const second = uniqueKey();
    expect(await keychain.get(account)).toBeNull();
    await keychain.set(account, first);
    expect(await keychain.get(account)).toBe(first);
    await keychain.set(account, second);
    expect(await keychain.get(account)).toBe(second);
    expect(await keychain.delete(account)).toBe(true);
    expect(await keychain.get(account)).toBeNull();
    expect(await keychain.delete(account)).toBe(false);
  });

  itReal('keeps a profile key in the real keychain, readable by another process and in no file', async () => {
    const profilesDir = path.join(dir, 'user-data');
    const store = await ProfileStore.open({ dir: profilesDir, demoKey: 'demo-key', secrets: new SecretRegistry(), keychain: new Keychain({ service: SERVICE }) });
    const key = uniqueKey();
    const created = await store.create({ name: 'Production', baseUrl: 'https://imagery.example.com', key });
    usedAccounts.add(created.id);
    expect(created).toMatchObject({ keySet: true, keyLast4: key.slice(-4) });

    // Another process, with no access to this one's memory, finds it under service/profile id.
    expect(await child(['get', SERVICE, created.id])).toEqual({ value: key });

    const files = readAllFiles(profilesDir);
    expect(files.map((f) => path.basename(f.file))).toEqual(['profiles.json']);
    for (const { file, text } of files) {
      expect(text, file).not.toContain(key);
      expect(text, file).not.toContain(Buffer.from(key).toString('base64'));
      expect(text, file).not.toContain(Buffer.from(key).toString('hex'));
    }

    // A fresh store (a restart) sees the same key status from the keychain.
    const reopened = await ProfileStore.open({ dir: profilesDir, demoKey: 'demo-key', secrets: new SecretRegistry(), keychain: new Keychain({ service: SERVICE }) });
    const listing = await reopened.list();
    expect(listing.keychainError).toBeNull();
    expect(listing.profiles.find((p) => p.id === created.id)).toMatchObject({ keySet: true, keyLast4: key.slice(-4) });
    expect(await reopened.getKey(created.id)).toBe(key);

    const replacement = uniqueKey();
    await reopened.setKey(created.id, replacement);
    expect(await child(['get', SERVICE, created.id])).toEqual({ value: replacement });

    await reopened.deleteKey(created.id);
    expect(await child(['get', SERVICE, created.id])).toEqual({ value: null });

    await reopened.setKey(created.id, key);
    await reopened.delete(created.id);
    expect(await child(['get', SERVICE, created.id])).toEqual({ value: null });
    expect(readFileSync(path.join(profilesDir, 'profiles.json'), 'utf8')).not.toContain(created.id);
  });

  itReal('reads a key another process stored', async () => {
    const profilesDir = path.join(dir, 'from-child');
    const key = uniqueKey();
    const { value: id } = await child(['create', SERVICE, profilesDir, key]);
    usedAccounts.add(id);
    const store = await ProfileStore.open({ dir: profilesDir, demoKey: 'demo-key', secrets: new SecretRegistry(), keychain: new Keychain({ service: SERVICE }) });
    expect(await store.getKey(id)).toBe(key);
    await store.delete(id);
  });

  itReal('tests keys from the keychain against the simulator', async () => {
    const store = await ProfileStore.open({ dir: path.join(dir, 'probe'), demoKey: 'demo-key', secrets: new SecretRegistry(), keychain: new Keychain({ service: SERVICE }) });
    store.setDemoBaseUrl(sim.url);
    expect(await store.testKey(DEMO_PROFILE_ID, fetchAccountInfoProbe)).toMatchObject({ status: 'ok' });
    const cases: Array<[string, object]> = [
      ['demo-key', { status: 'ok' }],
      ['demo-key-revoked', { status: 'auth', httpStatus: 403 }],
      [uniqueKey(), { status: 'auth', httpStatus: 401 }],
    ];
    for (const [key, expected] of cases) {
      const created = await store.create({ name: `Key ${key.slice(0, 12)}`, baseUrl: `${sim.url}/`, key });
      usedAccounts.add(created.id);
      const result = await store.testKey(created.id, fetchAccountInfoProbe);
      expect(result).toMatchObject(expected);
      expect(result.message).not.toContain(key);
      await store.delete(created.id);
    }
  });
});

describe('classifying a really unavailable keychain (Linux)', () => {
  let home: string;

  beforeAll(() => {
    home = tempDir('swath-keychain-home-');
  });

  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  itSession.each<[string, (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv]>([
    ['DBUS_SESSION_BUS_ADDRESS unset', (env) => env],
    ['DBUS_SESSION_BUS_ADDRESS pointing at no socket', (env) => ({ ...env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${path.join(home, 'no-such-bus')}` })],
  ])('no D-Bus session: %s', async (_label, adjust) => {
    const env = adjust(isolatedEnv(home));
    const result = await child(['raw', SERVICE, 'no-bus'], env);
    // keytar's own words, e.g. "Cannot autolaunch D-Bus without X11 $DISPLAY" or "Could not connect: No such file or directory".
    expect(result.set.error).toEqual(expect.any(String));
    const error = classifyKeychainError(new Error(result.set.error), { platform: 'linux', env });
    expect(error).toBeInstanceOf(KeychainError);
    expect(error.kind).toBe('keychain');
    expect(error.problem).toBe('no-dbus-session');
    expect(error.message).toMatch(/^No D-Bus session: log into a desktop session/);
    expect(error.message).toContain('dbus-run-session -- ');
    expect(error.message).toContain(result.set.error);
    // Reads fail just as loudly, so a missing bus never looks like "no key set".
    expect(classifyKeychainError(new Error(result.get.error), { platform: 'linux', env }).problem).toBe('no-dbus-session');
  });

  itSession('no Secret Service: a session bus on which nothing provides org.freedesktop.secrets', async () => {
    const env = isolatedEnv(home);
    const services = path.join(home, 'no-services');
    mkdirSync(services, { recursive: true });
    const config = path.join(home, 'bare-session.conf');
    writeFileSync(config, `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=${env.XDG_RUNTIME_DIR}</listen>
  <auth>EXTERNAL</auth>
  <servicedir>${services}</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`);
    const { stdout } = await execFileAsync(
      'dbus-run-session',
      [`--config-file=${config}`, '--', process.execPath, '--import', 'tsx', CHILD, 'raw', SERVICE, 'no-secret-service'],
      { cwd: ROOT, env, timeout: 60_000 },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(result.set.error).toMatch(/org\.freedesktop\.secrets/);
    const error = classifyKeychainError(new Error(result.set.error), { platform: 'linux', env });
    expect(error.problem).toBe('no-secret-service');
    expect(error.message).toMatch(/^No Secret Service: install and start gnome-keyring or KWallet/);
    expect(error.message).toContain('sudo apt-get install gnome-keyring libsecret-1-0');
  });

  itSession('no default keyring: the Secret Service starts but cannot create the login keyring', async () => {
    // A fresh HOME and no display: gnome-keyring is activated, cannot show its "create keyring" prompt, and has no collection.
    const env = isolatedEnv(path.join(home, 'fresh'));
    const { stdout } = await execFileAsync(
      'dbus-run-session',
      ['--', process.execPath, '--import', 'tsx', CHILD, 'raw', SERVICE, 'no-keyring'],
      { cwd: ROOT, env, timeout: 60_000 },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop()!);
    const error = classifyKeychainError(new Error(result.set.error), { platform: 'linux', env });
    expect(error.problem).toBe('no-keyring');
    expect(error.message).toMatch(/^No default keyring: create a "Login" keyring/);
  });

  itSession('a locked keyring: writes fail, reads answer "no key", and the store reports it as locked', async () => {
    const env = isolatedEnv(path.join(home, 'locked'));
    const out = path.join(home, 'locked-out');
    mkdirSync(out, { recursive: true });
    const key = uniqueKey();
    const script = [
      'set -e',
      'echo -n test | gnome-keyring-daemon --unlock --components=secrets >/dev/null',
      '"$NODE" --import tsx "$CHILD" create "$SERVICE" "$DIR" "$KEY" > "$OUT/create.json"',
      'dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets'
        + ' org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null',
      '"$NODE" --import tsx "$CHILD" raw "$SERVICE" locked-probe > "$OUT/raw.json"',
      '"$NODE" --import tsx "$CHILD" inspect "$SERVICE" "$DIR" > "$OUT/inspect.json"',
    ].join('\n');
    await execFileAsync('dbus-run-session', ['--', 'sh', '-c', script], {
      cwd: ROOT,
      env: { ...env, NODE: process.execPath, CHILD, SERVICE, DIR: path.join(out, 'user-data'), KEY: key, OUT: out },
      timeout: 120_000,
    });
    const read = (name: string) => JSON.parse(readFileSync(path.join(out, name), 'utf8'));
    expect(read('create.json').value).toEqual(expect.any(String));

    const raw = read('raw.json');
    expect(raw.get).toEqual({ value: null });
    const error = classifyKeychainError(new Error(raw.set.error), { platform: 'linux', env });
    expect(error.problem).toBe('locked');
    expect(error.message).toMatch(/^The keyring is locked: unlock the login keyring/);

    const inspect = read('inspect.json');
    expect(inspect.list.value.keychainError).toMatchObject({ problem: 'locked', message: expect.stringMatching(/^The keyring is locked/) });
    expect(inspect.list.value.profiles[1]).toMatchObject({ keySet: true, keyLast4: null });
    expect(inspect.getKey).toMatchObject({ problem: 'locked' });
    expect(JSON.stringify(inspect)).not.toContain(key);
  });
});
