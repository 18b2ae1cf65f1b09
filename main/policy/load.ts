import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { policyProblems, policySchema, type Policy } from './schema';

/** Environment variable that points Swath at another policy file (tests, pilots, a per-user deployment). */
export const POLICY_ENV = 'SWATH_POLICY_FILE';

/** Largest policy file read; a policy is a few hundred bytes, anything near this is a mistake. */
const MAX_POLICY_BYTES = 256 * 1024;

/** Where the machine-wide policy lives on each OS, unless {@link POLICY_ENV} names another file. */
export function policyPath(platform: NodeJS.Platform | string, env: NodeJS.ProcessEnv = {}): string {
  const override = env[POLICY_ENV]?.trim();
  if (override) return override;
  if (platform === 'win32') {
    // %ProgramData% is writable only by administrators (read-only for users), like /etc.
    const programData = env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData';
    return path.win32.join(programData, 'Swath', 'policy.json');
  }
  if (platform === 'darwin') return '/Library/Application Support/Swath/policy.json';
  return '/etc/swath/policy.json';
}

/** The policy as loaded: none, applied, or invalid (then nothing of it applies and the problems say why). */
export interface PolicyState {
  status: 'none' | 'applied' | 'invalid';
  /** The file that was looked at. */
  file: string;
  /** What is wrong with the file, one line per problem; empty unless invalid. */
  problems: string[];
  /** The policy in force: the file's when applied, empty (the app's own defaults) otherwise. */
  policy: Policy;
}

/** Reads and validates the policy file; never throws: a broken policy is reported and Swath starts with its own defaults. */
export async function loadPolicy(file: string, log: (line: string) => void = () => undefined): Promise<PolicyState> {
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
  const parsed = policySchema.safeParse(raw);
  if (!parsed.success) return invalid(file, policyProblems(parsed.error), log);
  log(`policy: applied ${file}`);
  return { status: 'applied', file, problems: [], policy: parsed.data };
}

function invalid(file: string, problems: string[], log: (line: string) => void): PolicyState {
  log(`policy: ${file} is invalid and was ignored (Swath uses its own defaults): ${problems.join(' | ')}`);
  return { status: 'invalid', file, problems, policy: {} };
}
