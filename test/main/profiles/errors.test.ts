import { describe, expect, it } from 'vitest';
import { toIpcError } from '../../../main/ipc/errors.js';
import { KeychainError, classifyKeychainError, type KeychainProblem } from '../../../main/profiles/index.js';

const linux = { platform: 'linux' as const, env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' }, exists: () => false };

describe('classifyKeychainError on Linux', () => {
  it('names a command that starts this Swath: the host\'s, or `npm start` in a checkout; never a `swath` command that may not exist', () => {
    const noBus = new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
    const checkout = classifyKeychainError(noBus, linux).message;
    expect(checkout).toContain('`dbus-run-session -- npm start`');
    expect(checkout).toContain("gnome-keyring-daemon --unlock --components=secrets; npm start'`");
    const browser = classifyKeychainError(noBus, { ...linux, launchCommand: 'npm run dev:browser' }).message;
    expect(browser).toContain('`dbus-run-session -- npm run dev:browser`');
    expect(browser).toContain('--components=secrets; npm run dev:browser');
    for (const message of [checkout, browser]) expect(message).not.toMatch(/-- swath\b|; swath\b/);
  });

  // Messages keytar 7.10.6 (libsecret) produced on Debian when each piece was missing.
  it.each<[string, KeychainProblem, RegExp]>([
    ['Cannot autolaunch D-Bus without X11 $DISPLAY', 'no-dbus-session', /^No D-Bus session: .*dbus-run-session -- /],
    ['Error spawning command line “dbus-launch --autolaunch=3d1219c7 --binary-syntax --close-stderr”: Child process exited with code 1', 'no-dbus-session', /^No D-Bus session: /],
    ['Could not connect: No such file or directory', 'no-dbus-session', /^No D-Bus session: log into a desktop session/],
    ['Could not connect: Connection refused', 'no-dbus-session', /^No D-Bus session: /],
    ['Address element “garbage” does not contain a colon (:)', 'no-dbus-session', /^No D-Bus session: /],
    ['The name org.freedesktop.secrets was not provided by any .service files', 'no-secret-service', /^No Secret Service: install and start gnome-keyring or KWallet \(`sudo apt-get install gnome-keyring libsecret-1-0`\)/i],
    ['GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The name is not activatable', 'no-secret-service', /^No Secret Service: /],
    ['Process org.freedesktop.secrets exited with status 1', 'no-secret-service', /^No Secret Service: /],
    ['Object does not exist at path “/org/freedesktop/secrets/collection/login”', 'no-keyring', /^No default keyring: .*Passwords and Keys/],
    ['Cannot create an item in a locked collection', 'locked', /^The keyring is locked: unlock the login keyring/],
    ['Cannot get secret of a locked object', 'locked', /^The keyring is locked: /],
    ['Prompt dismissed', 'locked', /^The keyring is locked: /],
  ])('%s -> %s', (message, problem, text) => {
    const error = classifyKeychainError(new Error(message), linux);
    expect(error).toBeInstanceOf(KeychainError);
    expect(error.problem).toBe(problem);
    expect(error.message).toMatch(text);
    expect(error.message).toContain(`(Details: ${message})`);
    expect(toIpcError(error)).toEqual({ kind: 'keychain', message: error.message });
  });

  it('falls back on the environment for a translated message', () => {
    const translated = new Error('无法在没有 X11 $DISPLAY 的情况下自动启动 D-Bus');
    expect(classifyKeychainError(translated, { platform: 'linux', env: {}, exists: () => false }).problem).toBe('no-dbus-session');
    // A systemd user bus is found through $XDG_RUNTIME_DIR/bus even without the variable.
    const withUserBus = { platform: 'linux' as const, env: { XDG_RUNTIME_DIR: '/run/user/1000' }, exists: (p: string) => p === '/run/user/1000/bus' };
    expect(classifyKeychainError(translated, withUserBus).problem).toBe('unavailable');
    expect(classifyKeychainError(translated, linux).problem).toBe('unavailable');
  });

  it('explains an unknown failure with a generic fix and the original detail', () => {
    const error = classifyKeychainError(new Error('Timeout was reached'), linux);
    expect(error.problem).toBe('unavailable');
    expect(error.message).toMatch(/gnome-keyring or KWallet.*\(Details: Timeout was reached\)/);
  });

  it('reports a missing native module as an installation problem', () => {
    const error = classifyKeychainError(new Error('Failed to load keytar native addon, checked ["../build/Release"]'), linux);
    expect(error.message).toMatch(/keytar\) could not be loaded.*Reinstall/);
  });

  it('scrubs the secret from the detail', () => {
    const error = classifyKeychainError(new Error('Cannot store hunter2-key-9f3a'), { ...linux, secret: 'hunter2-key-9f3a' });
    expect(error.message).not.toContain('hunter2-key-9f3a');
    expect(error.detail).toBe('Cannot store [redacted]');
  });
});

describe('classifyKeychainError on macOS and Windows', () => {
  it.each<[string, KeychainProblem, RegExp]>([
    ['User interaction is not allowed.', 'locked', /^The keychain is locked: .*Keychain Access/],
    ['User canceled the operation.', 'locked', /^The keychain is locked: /],
    ['The user name or passphrase you entered is not correct.', 'locked', /^The keychain is locked: /],
    ['A default keychain could not be found.', 'no-keyring', /^No default keychain: .*Reset Default Keychains/],
    ['The specified keychain could not be found.', 'no-keyring', /^No default keychain: /],
    ['Some other OSStatus', 'unavailable', /^The macOS Keychain could not be used.*Keychain Access/],
  ])('darwin: %s -> %s', (message, problem, text) => {
    const error = classifyKeychainError(new Error(message), { platform: 'darwin', env: {} });
    expect(error.problem).toBe(problem);
    expect(error.message).toMatch(text);
  });

  it('win32: points at Credential Manager and an interactive login', () => {
    const error = classifyKeychainError(new Error('A specified logon session does not exist. It may already have been terminated.'), { platform: 'win32', env: {} });
    expect(error.problem).toBe('unavailable');
    expect(error.message).toMatch(/Credential Manager.*interactive Windows login/);
    expect(error.platform).toBe('win32');
  });
});
