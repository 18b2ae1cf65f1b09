import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * `npm run audit`: checks the production dependencies (what ships in the app) against the
 * registry's security advisories with `npm audit --omit=dev`. Where the registry cannot answer
 * (a mirror or proxy that refuses the bulk advisory endpoint, no network) it prints
 * "skipped: <reason>" and exits 0, so it can run anywhere; with advisories it lists them and
 * exits 1. Not part of `npm test`: it needs the registry, and advisories change without any
 * change here.
 */

/** What `npm audit --json` printed and how it ended. */
export interface AuditRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** What to print and the exit code. */
export interface AuditVerdict {
  exitCode: 0 | 1 | 2;
  lines: string[];
}

interface AuditJson {
  vulnerabilities?: Record<string, { severity?: string; via?: unknown[]; fixAvailable?: unknown }>;
  metadata?: { vulnerabilities?: Record<string, number>; dependencies?: { prod?: number; total?: number } };
  message?: string;
  statusCode?: number;
  error?: { summary?: string; detail?: string };
}

// Failures that mean "advisories cannot be had from here", not "something is wrong with the project".
const UNREACHABLE = /ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|audit endpoint returned an error|network/i;

/** Reads an `npm audit --json` run into a verdict. */
export function auditVerdict(run: AuditRun): AuditVerdict {
  let json: AuditJson | null = null;
  try {
    json = JSON.parse(run.stdout) as AuditJson;
  } catch {
    json = null;
  }
  if (json?.vulnerabilities) {
    const names = Object.entries(json.vulnerabilities);
    const packages = json.metadata?.dependencies?.prod ?? json.metadata?.dependencies?.total;
    if (names.length === 0) return { exitCode: 0, lines: [`npm audit: no known advisories for the production dependencies${packages ? ` (${packages} packages)` : ''}.`] };
    const lines = [`npm audit: ${names.length} production package${names.length === 1 ? '' : 's'} with advisories:`];
    for (const [name, v] of names) {
      const via = (v.via ?? []).map((x) => (typeof x === 'string' ? x : (x as { title?: string; url?: string }).title ?? '')).filter(Boolean).join('; ');
      lines.push(`- ${name} (${v.severity ?? 'unknown severity'})${via ? `: ${via}` : ''}${v.fixAvailable ? ' [fix available: npm audit fix --omit=dev]' : ''}`);
    }
    return { exitCode: 1, lines };
  }
  const reason = json?.message || json?.error?.summary || run.stderr.split('\n').find((l) => l.trim())?.replace(/^npm (?:warn|error) (?:audit )?/i, '') || `npm audit exited with ${run.status}`;
  const refused = (json?.statusCode !== undefined && json.statusCode >= 400) || UNREACHABLE.test(`${reason}\n${run.stderr}`);
  if (refused) return { exitCode: 0, lines: [`skipped: the registry gave no advisories (${reason.trim()}); run npm run audit where the registry serves /-/npm/v1/security/advisories/bulk.`] };
  return { exitCode: 2, lines: [`npm audit failed: ${reason.trim()}`] };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = spawnSync(npm, ['audit', '--omit=dev', '--json', ...process.argv.slice(2)], { encoding: 'utf8', shell: process.platform === 'win32', timeout: 120_000 });
  const verdict = auditVerdict({ status: run.status, stdout: run.stdout ?? '', stderr: `${run.stderr ?? ''}${run.error ? `\n${run.error.message}` : ''}` });
  for (const line of verdict.lines) console.log(line);
  process.exit(verdict.exitCode);
}
