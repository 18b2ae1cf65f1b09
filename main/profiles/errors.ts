import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../common/errors.js';

/** What exactly is wrong with the OS keychain; the UI may branch on it, the message already explains it. */
export type KeychainProblem =
  | 'no-dbus-session'
  | 'no-secret-service'
  | 'no-keyring'
  | 'locked'
  | 'unavailable';

/** The keychain could not be used; `message` names what is missing and how to fix it on this OS. */
export class KeychainError extends AppError<'keychain'> {
  /** Builds a keychain error; `detail` is the backend's own message, kept for diagnostics (it never holds a key). */
  constructor(
    readonly problem: KeychainProblem,
    message: string,
    readonly platform: NodeJS.Platform,
    readonly detail?: string,
  ) {
    super('keychain', message);
    this.name = 'KeychainError';
  }
}

/** Where a keychain error happened, so classification can look at the same environment keytar saw. */
export interface ClassifyContext {
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  /** A secret that was being stored or read; scrubbed from the detail in case a backend ever echoes it. */
  secret?: string;
  /** Checks that a path exists; injected so the session-bus fallback is testable. */
  exists?: (path: string) => boolean;
  /**
   * The command that starts this Swath, for advice that says "start it inside a D-Bus session":
   * the installed executable, `npm start` in a checkout, `npm run dev:browser` for the browser host.
   */
  launchCommand?: string;
}

/** The launch command when the host names none: a checkout's. */
export const DEFAULT_LAUNCH_COMMAND = 'npm start';
const LAUNCH = '{launch}';

type MessageTable = Partial<Record<KeychainProblem, string>> & { unavailable: string };

const LINUX_MESSAGES: Record<KeychainProblem, string> = {
  'no-dbus-session':
    'No D-Bus session: log into a desktop session (GNOME, KDE, ...), or start Swath inside one with ' +
    `\`dbus-run-session -- ${LAUNCH}\` (headless: \`dbus-run-session -- sh -c 'echo -n <password> | gnome-keyring-daemon --unlock --components=secrets; ${LAUNCH}'\`). ` +
    'Swath keeps API keys in the Secret Service, which it reaches over the D-Bus session bus, and ' +
    'DBUS_SESSION_BUS_ADDRESS is unset, invalid or refuses connections.',
  'no-secret-service':
    'No Secret Service: install and start gnome-keyring or KWallet (`sudo apt-get install gnome-keyring libsecret-1-0`), ' +
    'then log out and back in. Nothing on the D-Bus session provides org.freedesktop.secrets, where Swath keeps API keys.',
  'no-keyring':
    'No default keyring: create a "Login" keyring in Passwords and Keys (seahorse: + > Password keyring, then ' +
    'right-click > Set as default), or run `gnome-keyring-daemon --unlock`, type a password and press Ctrl-D. ' +
    'The Secret Service has no keyring to store the key in, and none could be created (the prompt was dismissed or could not be shown).',
  locked:
    'The keyring is locked: unlock the login keyring (GNOME: Passwords and Keys / seahorse, right-click "Login" > Unlock; ' +
    'KDE: KWallet Manager > Open), or accept the unlock prompt when Swath shows it, then try again.',
  unavailable:
    'The Secret Service could not be used: check that gnome-keyring or KWallet is running and its login keyring is unlocked ' +
    '(`secret-tool store --label=test service swath-check account test` should succeed).',
};

const MAC_MESSAGES: MessageTable = {
  'no-keyring':
    'No default keychain: open Keychain Access and choose Keychain Access > Settings > Reset Default Keychains ' +
    '(or File > New Keychain and make it the default), then try again. macOS has no login keychain to store the key in.',
  locked:
    'The keychain is locked: unlock the "login" keychain in Keychain Access (File > Unlock Keychain "login"), ' +
    'or allow access when macOS asks, then try again.',
  unavailable:
    'The macOS Keychain could not be used: open Keychain Access and check that the "login" keychain exists and is unlocked ' +
    '(in Terminal: `security unlock-keychain login.keychain`).',
};

const WINDOWS_MESSAGES: MessageTable = {
  unavailable:
    'Windows Credential Manager could not be used: run Swath from an interactive Windows login (not a service or a ' +
    'remote session without a user profile), check that the "Credential Manager" service is running, and open ' +
    'Control Panel > Credential Manager > Windows Credentials to confirm it works.',
};

const OTHER_MESSAGE = 'The OS keychain could not be used: this platform has no supported keychain for keytar.';

// Matched against lower-cased messages. GLib translates most of its messages, so the
// untranslated D-Bus names (org.freedesktop.secrets, dbus-launch) carry most of the weight.
const LINUX_RULES: Array<[KeychainProblem, RegExp]> = [
  // "Cannot autolaunch D-Bus without X11 $DISPLAY", "Error spawning command line “dbus-launch --autolaunch=...”",
  // "Cannot spawn a message bus without a machine-id", "Could not connect: No such file or directory / Connection refused",
  // "Address element “x” does not contain a colon (:)", "Unknown address type".
  ['no-dbus-session', /autolaunch|dbus-launch|message bus without|could not connect|couldn.t connect|address element|unknown address type|unsupported transport|dbus_session_bus_address/],
  // "The name org.freedesktop.secrets was not provided by any .service files" (ServiceUnknown),
  // "Process org.freedesktop.secrets exited with status 1", "No such interface “org.freedesktop.Secret.Service”".
  ['no-secret-service', /org\.freedesktop\.secrets\b|serviceunknown|org\.freedesktop\.secret\.service|name has no owner/],
  // "Object does not exist at path “/org/freedesktop/secrets/collection/login”", "No such secret collection at path: ...".
  ['no-keyring', /object does not exist at path|no such secret collection/],
  // "Cannot create an item in a locked collection", "Cannot get secret of a locked object", "Prompt dismissed".
  ['locked', /locked|islocked|prompt.*(dismiss|cancel)|(dismiss|cancel).*prompt/],
];

const MAC_RULES: Array<[KeychainProblem, RegExp]> = [
  // errSecNoDefaultKeychain "A default keychain could not be found.", errSecNoSuchKeychain "The specified keychain could not be found.".
  ['no-keyring', /keychain could not be found|no keychain is available|no default keychain/],
  // errSecInteractionNotAllowed "User interaction is not allowed.", errSecUserCanceled "User canceled the operation.",
  // errSecAuthFailed "The user name or passphrase you entered is not correct.".
  ['locked', /interaction is not allowed|user cancel|passphrase|locked/],
];

/** Turns whatever keytar (or another backend) threw into a {@link KeychainError} with an OS-specific fix. */
export function classifyKeychainError(error: unknown, context: ClassifyContext = {}): KeychainError {
  if (error instanceof KeychainError) return error;
  const platform = context.platform ?? process.platform;
  const env = context.env ?? process.env;
  const detail = scrub(rawMessage(error), context.secret);
  const lower = detail.toLowerCase();

  if (/failed to load keytar|keytar\.node|cannot find (module|package) 'keytar'|err_dlopen_failed/.test(lower)) {
    return new KeychainError(
      'unavailable',
      withDetail('The keychain module (keytar) could not be loaded: the installation is incomplete. Reinstall Swath.', detail),
      platform,
      detail,
    );
  }

  let problem: KeychainProblem = 'unavailable';
  let table: MessageTable;
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') {
    table = LINUX_MESSAGES;
    problem = firstMatch(LINUX_RULES, lower) ?? linuxFallback(env, context.exists ?? existsSync);
  } else if (platform === 'darwin') {
    table = MAC_MESSAGES;
    problem = firstMatch(MAC_RULES, lower) ?? 'unavailable';
  } else if (platform === 'win32') {
    table = WINDOWS_MESSAGES;
  } else {
    return new KeychainError('unavailable', withDetail(OTHER_MESSAGE, detail), platform, detail);
  }
  return fromTable(table, problem, platform, detail, context.launchCommand);
}

/** Builds the error for a problem detected without a backend error (e.g. a keyring that silently stays locked). */
export function keychainErrorFor(problem: KeychainProblem, platform: NodeJS.Platform = process.platform, detail?: string, launchCommand?: string): KeychainError {
  const table = platform === 'darwin' ? MAC_MESSAGES : platform === 'win32' ? WINDOWS_MESSAGES : LINUX_MESSAGES;
  return fromTable(table, problem, platform, detail, launchCommand);
}

// A problem the OS has no specific advice for (e.g. "locked" on Windows) gets the general one.
function fromTable(table: MessageTable, problem: KeychainProblem, platform: NodeJS.Platform, detail?: string, launchCommand = DEFAULT_LAUNCH_COMMAND): KeychainError {
  const message = table[problem]?.replaceAll(LAUNCH, launchCommand);
  if (!message) return new KeychainError('unavailable', withDetail(table.unavailable, detail), platform, detail);
  return new KeychainError(problem, withDetail(message, detail), platform, detail);
}

function firstMatch(rules: Array<[KeychainProblem, RegExp]>, lower: string): KeychainProblem | undefined {
  return rules.find(([, pattern]) => pattern.test(lower))?.[0];
}

// A translated GLib message matches no rule; the environment still tells whether a session bus
// could have been found (GLib looks at DBUS_SESSION_BUS_ADDRESS, then $XDG_RUNTIME_DIR/bus).
function linuxFallback(env: NodeJS.ProcessEnv, exists: (path: string) => boolean): KeychainProblem {
  if (env.DBUS_SESSION_BUS_ADDRESS) return 'unavailable';
  if (env.XDG_RUNTIME_DIR && exists(join(env.XDG_RUNTIME_DIR, 'bus'))) return 'unavailable';
  return 'no-dbus-session';
}

function rawMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return String(error);
}

function withDetail(message: string, detail?: string): string {
  return detail ? `${message} (Details: ${detail})` : message;
}

/** Removes every occurrence of `secret` from `text`; errors and logs must never carry a key. */
export function scrub(text: string, secret?: string | null): string {
  if (!secret) return text;
  return text.split(secret).join('[redacted]');
}
