import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import type { NodeLogger } from 'electron-log';
import type { LogRedactor } from './redact';

/**
 * Main's log file, written by electron-log (maintained, used by most Electron
 * apps, sync file writes that survive a crash, size-based rotation). Every
 * message is formatted to one string and redacted before any transport sees
 * it. The Electron host passes `electron-log/main`; tests pass `electron-log/node`.
 */

/** The log file's name inside the OS log folder. */
export const LOG_FILE_NAME = 'main.log';
/** Rotated when larger than this. */
export const LOG_MAX_BYTES = 1024 * 1024;
/** Rotated files kept: main.1.log (newest) .. main.N.log. */
export const LOG_ARCHIVES = 3;

/** Options of {@link configureLog}. */
export interface LogOptions {
  /** The OS log folder (Electron: app.getPath('logs')). */
  dir: string;
  /** The redaction of every message (over the app's secret registry). */
  redactor: LogRedactor;
  maxBytes?: number;
  archives?: number;
  /** Also print to stderr (development). */
  console?: boolean;
}

/** What main logs through. */
export interface SwathLog {
  /** Absolute path of the current log file. */
  file: string;
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
  /** The last `n` lines of the current and rotated files, oldest first (already redacted when written). */
  tail(n: number): string[];
}

/** Configures an electron-log instance: file in `dir`, rotation, redaction of every message. */
export function configureLog(logger: NodeLogger, options: LogOptions): SwathLog {
  const file = path.join(options.dir, LOG_FILE_NAME);
  const archives = options.archives ?? LOG_ARCHIVES;
  const fileTransport = logger.transports.file;
  fileTransport.resolvePathFn = () => file;
  fileTransport.maxSize = options.maxBytes ?? LOG_MAX_BYTES;
  fileTransport.level = 'info';
  fileTransport.format = '[{y}-{m}-{d} {h}:{i}:{s}.{ms}] [{level}] {text}';
  fileTransport.archiveLogFn = (current) => rotate(current.path, archives);
  logger.transports.console.level = options.console ? 'info' : false;
  // One redaction for every transport: the message is a single redacted string before any of them formats it.
  logger.hooks.push((message) => ({ ...message, data: [options.redactor.redact(format(...(message.data as unknown[])))] }));

  return {
    file,
    info: (message) => logger.info(message),
    warn: (message) => logger.warn(message),
    error: (message, error) => (error === undefined ? logger.error(message) : logger.error(message, error instanceof Error ? (error.stack ?? error.message) : error)),
    tail: (n) => tailLines(file, archives, n),
  };
}

/**
 * main.log -> main.1.log -> main.2.log ...; the oldest falls off. Renames of whole log files before
 * the log opens (not writes: the logger appends to main.log itself, and a lost rotation only keeps
 * a longer log), so not the files module's atomic writes.
 */
function rotate(current: string, archives: number): void {
  const { dir, name, ext } = path.parse(current);
  const archive = (i: number) => path.join(dir, `${name}.${i}${ext}`);
  rmSync(archive(archives), { force: true });
  for (let i = archives - 1; i >= 1; i--) if (existsSync(archive(i))) renameSync(archive(i), archive(i + 1));
  renameSync(current, archive(1));
}

function tailLines(file: string, archives: number, n: number): string[] {
  const { dir, name, ext } = path.parse(file);
  const lines: string[] = [];
  // Newest file first, until enough lines are collected.
  for (let i = 0; i <= archives && lines.length < n; i++) {
    const f = i === 0 ? file : path.join(dir, `${name}.${i}${ext}`);
    if (!existsSync(f)) continue;
    const own = readFileSync(f, 'utf8').split(/\r?\n/).filter((l) => l.length > 0);
    lines.unshift(...own.slice(-(n - lines.length)));
  }
  return lines.slice(-n);
}

/** Logs uncaught exceptions and unhandled rejections of the process instead of dying silently. */
export function catchProcessErrors(log: SwathLog, target: NodeJS.Process = process): void {
  target.on('uncaughtException', (error) => log.error('Uncaught exception in main', error));
  target.on('unhandledRejection', (reason) => log.error('Unhandled promise rejection in main', reason));
}
