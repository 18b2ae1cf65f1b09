import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parsePolicy, updateFeedProblem, type Policy } from './schema';

/**
 * Environment variable that points Swath at another policy file: development and tests only. An
 * installed (packaged) build ignores it, or any user could replace the machine policy with a file
 * of their own (an empty one drops every rule IT set).
 */
export const POLICY_ENV = 'SWATH_POLICY_FILE';

/** Largest policy file read; a policy is a few hundred bytes, anything near this is a mistake. */
const MAX_POLICY_BYTES = 256 * 1024;

/** Where a packaged Windows build reads the policy: %ProgramData% at its standard place, never taken from the user's environment. */
const WINDOWS_PROGRAM_DATA = 'C:\\ProgramData';

/** Options of {@link policyPath}. */
export interface PolicyPathOptions {
  /** An installed build (Electron's app.isPackaged): only the per-OS path counts, the environment is not read. */
  packaged: boolean;
}

/**
 * Where the machine-wide policy lives on each OS. In development and tests {@link POLICY_ENV}
 * names another file and %ProgramData% is read from the environment; a packaged build uses
 * the per-OS path and nothing a user can set.
 */
export function policyPath(platform: NodeJS.Platform | string, env: NodeJS.ProcessEnv, options: PolicyPathOptions): string {
  const override = options.packaged ? undefined : env[POLICY_ENV]?.trim();
  if (override) return override;
  if (platform === 'win32') {
    // %ProgramData% is writable only by administrators (read-only for users), like /etc.
    const programData = options.packaged ? WINDOWS_PROGRAM_DATA : env.ProgramData ?? env.PROGRAMDATA ?? WINDOWS_PROGRAM_DATA;
    return path.win32.join(programData, 'Swath', 'policy.json');
  }
  if (platform === 'darwin') return '/Library/Application Support/Swath/policy.json';
  return '/etc/swath/policy.json';
}

/** Variables that redirect Swath's state or policy; honoured only when not packaged. */
export const DEV_ONLY_ENV = [POLICY_ENV, 'SWATH_USER_DATA_DIR'] as const;

/** The userData folder named by SWATH_USER_DATA_DIR (side-by-side profiles in development and tests), or null; always null when packaged. */
export function userDataOverride(env: NodeJS.ProcessEnv, options: PolicyPathOptions): string | null {
  if (options.packaged) return null;
  return env.SWATH_USER_DATA_DIR?.trim() || null;
}

/** Which of {@link DEV_ONLY_ENV} are set but ignored (packaged build), for the log. */
export function ignoredDevEnv(env: NodeJS.ProcessEnv, options: PolicyPathOptions): string[] {
  return options.packaged ? DEV_ONLY_ENV.filter((name) => env[name]?.trim()) : [];
}

/**
 * The policy as loaded: none, applied (its valid keys), or invalid (no key of it applies: the file
 * cannot be read, or every key in it is wrong; the problems say why).
 */
export interface PolicyState {
  status: 'none' | 'applied' | 'invalid';
  /** The file that was looked at. */
  file: string;
  /**
   * What is wrong with the file, one line per problem. Invalid: why nothing applies. Applied: a key
   * that was ignored, or one that applies but cannot be used (an http update feed: updates stay off).
   */
  problems: string[];
  /** The policy in force: the file's valid keys, empty (the app's own defaults) when none. */
  policy: Policy;
  /**
   * Why the file's monthly ceiling cannot be read (its key is wrong, or the file itself is), or
   * absent when it can: then every spend needs the analyst's consent (main/policy/apply.ts `budgetProblem`).
   */
  ceilingUnreadable?: string;
}

/**
 * Reads and validates the policy file, key by key; never throws. A wrong key is reported and ignored
 * while the valid ones apply; a file that cannot be read is reported and Swath starts with its own
 * defaults. Either way a ceiling that cannot be read is not taken as none (`ceilingUnreadable`).
 */
export async function loadPolicy(file: string, log: (line: string) => void = () => undefined): Promise<PolicyState> {
  // Not the files module's readJsonFile: IT writes this file, never main; it is read bounded, with a
  // byte-order mark allowed, and each problem is reported in the policy's own words.
  let text: string;
  try {
    const buffer = await readFile(file);
    if (buffer.length > MAX_POLICY_BYTES) return invalid(file, [`The file is ${buffer.length} bytes; a policy is at most ${MAX_POLICY_BYTES} bytes.`], log);
    text = buffer.toString('utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'none', file, problems: [], policy: {} };
    return invalid(file, [`The file could not be read (${code ?? (error as Error).message}).`], log);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return invalid(file, [`The file is not valid JSON: ${(error as Error).message}`], log);
  }
  const { policy, problems, ceilingUnreadable } = parsePolicy(raw);
  const ceiling = ceilingUnreadable === null ? {} : { ceilingUnreadable };
  if (problems.length && !Object.keys(policy).length) return invalid(file, problems, log, ceiling);
  const ignored = problems.map((p) => `${p} That key is ignored.`);
  // An http update feed is refused (updates stay off) while the rest of the policy applies.
  const feed = policy.updates?.url;
  const feedProblem = feed ? updateFeedProblem(feed) : null;
  if (feedProblem) ignored.push(`updates.url: ${feedProblem} Updates are off until it is fixed.`);
  log(`policy: applied ${file}${ignored.length ? `, with problems: ${ignored.join(' | ')}` : ''}`);
  return { status: 'applied', file, problems: ignored, policy, ...ceiling };
}

/** Nothing of the file applies; its ceiling cannot be read unless the file was read and names none. */
function invalid(file: string, problems: string[], log: (line: string) => void, ceiling: Pick<PolicyState, 'ceilingUnreadable'> = { ceilingUnreadable: problems.join(' ') }): PolicyState {
  log(`policy: ${file} is invalid and was ignored (Swath uses its own defaults): ${problems.join(' | ')}`);
  return { status: 'invalid', file, problems, policy: {}, ...ceiling };
}
