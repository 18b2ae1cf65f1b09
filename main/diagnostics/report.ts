import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { PolicyView } from '../policy';
import type { LogRedactor } from '../logging/redact';
import type { UpdateStatus } from '../updates';

/**
 * The diagnostics report support asks for: versions, OS, profile origins
 * (never keys, never full URLs with paths), the end of the log, the download
 * queue and the userData file list. The whole text goes through the same
 * redaction as the log before it leaves main, so a key that slipped into any
 * part of it (a log line, a job's error) is still not there. Personal data is
 * left out: no absolute path is written (a folder can name the OS user, a
 * customer or a project): the home folder is `~`, the userData folder
 * `<userData>`, the policy file `<policy file>`, and any other absolute path
 * (`/tmp/…`, `/mnt/share/…`, `D:\…`, `\\server\share\…`, `file://…`) `<path>`;
 * profile names (they can name customers) only when the analyst ticks them in.
 */

/** Everything the report is made of; gathered by the app core. */
export interface DiagnosticsInput {
  version: string;
  contractVersion: string;
  platform: string;
  arch: string;
  osRelease: string;
  versions: Record<string, string | undefined>;
  profiles: { name: string; baseUrl: string | null; builtIn: boolean; active: boolean; keySet: boolean }[];
  jobs: { id: string; kind: string; state: string; reason?: string; bytes: number; total: number | null; updatedAt: string }[];
  userDataDir: string;
  logFile: string | null;
  logTail: string[];
  policy: PolicyView;
  updates: UpdateStatus | null;
  /** The user's home folder, written as `~` wherever it appears. */
  homeDir: string;
  /** Profile names as they are; otherwise "profile 1", "profile 2"… */
  includeProfileNames: boolean;
}

/** How many log lines the report carries. */
export const DIAGNOSTICS_LOG_LINES = 200;
const MAX_FILES = 400;
const MAX_DEPTH = 4;

/** The scheme, host and port of a URL, nothing else (a path could name a customer). */
export function originOf(url: string | null): string {
  if (!url) return '(none)';
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

/** The userData files, relative, with sizes; bounded in depth and count. */
export async function listFiles(root: string, maxFiles = MAX_FILES): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (out.length >= maxFiles) return;
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      if (entry.isDirectory()) {
        out.push(`${rel}${path.sep}`);
        if (depth < MAX_DEPTH) await walk(full, depth + 1);
      } else {
        const size = await stat(full).then((s) => s.size, () => -1);
        out.push(`${rel}  ${size} B`);
      }
    }
  };
  await walk(root, 0);
  if (out.length >= maxFiles) out.push(`… (listing stopped at ${maxFiles} entries)`);
  return out;
}

/** Builds the report's text, redacted. */
export async function buildDiagnostics(input: DiagnosticsInput, redactor: LogRedactor, now: Date): Promise<string> {
  const lines: string[] = [];
  const section = (title: string) => lines.push('', `## ${title}`);
  lines.push(`# Swath diagnostics, ${now.toISOString()}`);
  section('Version');
  lines.push(`Swath ${input.version}, IPC contract ${input.contractVersion}`);
  for (const [name, v] of Object.entries(input.versions)) if (v) lines.push(`${name} ${v}`);
  section('System');
  lines.push(`${input.platform} ${input.arch}, OS release ${input.osRelease}`);
  section('Policy');
  lines.push(`${input.policy.status} (${input.policy.file})`);
  for (const problem of input.policy.problems) lines.push(`problem: ${problem}`);
  if (input.policy.status === 'applied') {
    lines.push(`locked profiles: ${input.policy.lockedProfileIds.length}, demo hidden: ${input.policy.hideDemoService}, basemap: ${input.policy.basemap?.online ?? 'default'}, download folder fixed: ${input.policy.downloadDir !== null}`);
  }
  section('Updates');
  lines.push(input.updates ? `${input.updates.state}: ${input.updates.message} (channel ${input.updates.channel})` : 'not available in this host');
  section(`Profiles (origins only; keys are never included${input.includeProfileNames ? '' : '; names left out'})`);
  let n = 0;
  for (const p of input.profiles) {
    const name = p.builtIn ? 'demo' : input.includeProfileNames ? p.name : `profile ${++n}`;
    lines.push(`- ${name}: ${p.builtIn ? 'built-in demo service' : originOf(p.baseUrl)}${p.active ? ' [active]' : ''}, key ${p.keySet ? 'set' : 'not set'}`);
  }
  section('Download queue');
  const counts = new Map<string, number>();
  for (const job of input.jobs) counts.set(job.state, (counts.get(job.state) ?? 0) + 1);
  lines.push(input.jobs.length ? [...counts].map(([s, c]) => `${s}: ${c}`).join(', ') : 'empty');
  for (const job of input.jobs.slice(-20)) {
    lines.push(`- ${job.id} ${job.kind} ${job.state} ${job.bytes}/${job.total ?? '?'} B, ${job.updatedAt}${job.reason ? `: ${job.reason}` : ''}`);
  }
  section(`userData files (${input.userDataDir})`);
  lines.push(...(await listFiles(input.userDataDir)));
  section(`Log, last ${input.logTail.length} lines (${input.logFile ?? 'no log file in this host'})`);
  lines.push(...input.logTail);
  const folders = [
    { folder: input.userDataDir, label: '<userData>' },
    { folder: input.policy.file, label: '<policy file>' },
    { folder: input.homeDir, label: '~' },
  ];
  return `${maskPaths(redactor.redact(lines.join('\n')), folders)}\n`;
}

/** What the report writes for an absolute path outside the folders it names. */
export const MASKED_PATH = '<path>';

// An absolute path where one starts (the start, a space, a quote, a bracket, `=`, `,` or `;`):
// `file://…`; a UNC path `\\server\share\…` or `//server/share/…`; a drive path `C:\…` or `C:/…`;
// a POSIX path `/…` (not the service's `/api/…` operations in the log). Quoted, it runs to the
// closing quote (a folder name may hold spaces); otherwise to the next space or delimiter.
const PATH_START = String.raw`(?<=^|[\s"'\`(\[{<=,;])`;
const PATH_HEAD = String.raw`(?:file:\/\/|\\\\[^\s\\/"'\`<>|]+[\\/]|\/\/[^\s\/"'\`<>|]+\/|[A-Za-z]:[\\/]|\/(?!\/|api\/)(?=[^\s\/]))`;
const QUOTED_PATH = new RegExp(String.raw`(["'\`])${PATH_HEAD}[^"'\`\n]*(?=\1)`, 'g');
// A colon or full stop that ends a sentence ("open /tmp/a.tif: ENOENT") is not part of the path.
const BARE_PATH = new RegExp(String.raw`${PATH_START}${PATH_HEAD}[^\s"'\`<>|,;)\]}]*?(?=$|[\s"'\`<>|,;)\]}]|[:.](?:\s|$))`, 'g');

/**
 * Masks every absolute path in a text: first the named folders (their label, then the path inside
 * them as it was), longest first, then any other absolute path as {@link MASKED_PATH} whole.
 */
export function maskPaths(text: string, folders: readonly { folder: string; label: string }[]): string {
  let out = text;
  for (const { folder, label } of [...folders].sort((a, b) => b.folder.length - a.folder.length)) out = maskFolder(out, folder, label);
  return out.replace(QUOTED_PATH, (_m, quote: string) => `${quote}${MASKED_PATH}`).replace(BARE_PATH, MASKED_PATH);
}

/** Every occurrence of a folder (or file) written as `label`, with either slash on Windows. */
export function maskFolder(text: string, folder: string, label: string): string {
  const home = folder.replace(/[\\/]+$/, '');
  // "/" or a drive root names no one (and would garble every path); other paths are masked whole.
  if (home.length < 3) return text;
  const forms = new Set([home, home.replaceAll('\\', '/'), home.replaceAll('/', '\\')]);
  // Windows paths compare without case (C:\Users\Ann is c:\users\ann).
  const flags = /^[A-Za-z]:/.test(home) ? 'gi' : 'g';
  let out = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    const escaped = form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // Only as a whole path prefix: /home/ann, not /home/anna.
    out = out.replace(new RegExp(`${escaped}(?=$|[\\\\/\\s"'):,;])`, flags), label);
  }
  return out;
}

/** The default file name of a saved report. */
export function diagnosticsFileName(now: Date): string {
  return `swath-diagnostics-${now.toISOString().slice(0, 19).replaceAll(':', '-')}.txt`;
}
