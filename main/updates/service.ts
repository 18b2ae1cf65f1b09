import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AppUpdater, ProgressInfo, UpdateInfo } from 'electron-updater';
import { AppError } from '../../common/errors.js';
import { isoNow, systemClock, type Clock } from '../platform/clock.js';
import { FIXED_BY_POLICY, updateChannels, type UpdateChannel } from '../policy';
import { readJsonFile, writeFileAtomic, writeJsonAtomic } from '../shared/files.js';
import { feedChannelName, resolveUpdateConfig, type UpdateConfig, type UpdateInputs } from './config';

/**
 * Updates from an internal server with electron-updater's generic provider:
 * check at start and daily, download in the background, and install only
 * when the user says so. electron-updater verifies the sha512 of every
 * download against the feed, refuses a version lower than the running one
 * (allowDowngrade stays false, also on a channel), honours stagingPercentage,
 * and on Windows checks the installer's signature against the publisher names
 * given at build time; macOS (Squirrel.Mac) refuses an update not signed by
 * the same team. This module only configures it and tracks its state.
 */

/** How often a running app looks for updates. */
export const CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** Where updates stand; pushed to the renderer as `updates:state`. */
export interface UpdateStatus {
  state: 'off' | 'idle' | 'checking' | 'none' | 'downloading' | 'ready' | 'error';
  message: string;
  currentVersion: string;
  version: string | null;
  releaseNotes: string | null;
  percent: number | null;
  url: string | null;
  channel: UpdateChannel;
  channelFixed: boolean;
  checkedAt: string | null;
}

/** Options of {@link UpdateService.open}. */
export interface UpdateServiceOptions {
  /**
   * electron-updater's updater for this platform (Electron: `autoUpdater`); tests make one with a Node app adapter.
   * Called only when updates are on, so a build without a feed never loads electron-updater.
   */
  updater: () => AppUpdater | Promise<AppUpdater>;
  /** Folder for the generated update config and the user's channel choice (userData/updates). */
  stateDir: string;
  currentVersion: string;
  inputs: Omit<UpdateInputs, 'userChannel'>;
  publisherNames?: string[];
  onState?: (status: UpdateStatus) => void;
  log?: (line: string) => void;
  /** The app's clock (when the feed was last checked); the system clock by default. */
  clock?: Clock;
}

/** Keeps electron-updater configured from the policy, the build and the user's channel, and reports its state. */
export class UpdateService {
  private config!: UpdateConfig;
  private status!: UpdateStatus;
  private timer: NodeJS.Timeout | null = null;
  private readonly log: (line: string) => void;
  private readonly checkedAt: () => string;

  private updater: AppUpdater | null = null;

  private constructor(
    private readonly options: UpdateServiceOptions,
    private userChannel: UpdateChannel | null,
  ) {
    this.log = options.log ?? (() => undefined);
    const clock = options.clock ?? systemClock;
    this.checkedAt = () => isoNow(clock);
  }

  private attach(u: AppUpdater): void {
    const options = this.options;
    this.updater = u;
    u.logger = { info: (m) => this.log(`updates: ${String(m)}`), warn: (m) => this.log(`updates: ${String(m)}`), error: (m) => this.log(`updates: ${String(m)}`), debug: () => undefined };
    u.autoDownload = true;
    // Installing means restarting: only when the user agrees (updates:install), never silently on quit.
    u.autoInstallOnAppQuit = false;
    u.on('checking-for-update', () => this.set({ state: 'checking', message: 'Looking for an update…' }));
    u.on('update-available', (info: UpdateInfo) => this.set({ state: 'downloading', message: `Downloading Swath ${info.version}…`, version: info.version, releaseNotes: notesOf(info), percent: 0 }));
    u.on('update-not-available', (info: UpdateInfo) => this.set({ state: 'none', message: `Swath ${options.currentVersion} is up to date (the feed offers ${info.version}).`, version: null, releaseNotes: null, percent: null, checkedAt: this.checkedAt() }));
    u.on('download-progress', (p: ProgressInfo) => this.set({ percent: Math.round(p.percent) }));
    u.on('update-downloaded', (info: UpdateInfo) => this.set({ state: 'ready', message: `Swath ${info.version} is ready: restart to install it.`, version: info.version, releaseNotes: notesOf(info), percent: 100, checkedAt: this.checkedAt() }));
    u.on('error', (error: Error) => this.set({ state: 'error', message: `The update failed: ${firstLine(error.message)}`, percent: null, checkedAt: this.checkedAt() }));
  }

  /** Reads the user's channel and configures the updater. */
  static async open(options: UpdateServiceOptions): Promise<UpdateService> {
    await mkdir(options.stateDir, { recursive: true });
    let userChannel: UpdateChannel | null = null;
    // None saved yet, or unreadable: the channel the policy and defaults give.
    const saved = (await readJsonFile(path.join(options.stateDir, 'channel.json')).catch(() => null)) as { channel?: unknown } | null;
    if (updateChannels.includes(saved?.channel as UpdateChannel)) userChannel = saved!.channel as UpdateChannel;
    const service = new UpdateService(options, userChannel);
    await service.configure();
    return service;
  }

  /** The current state. */
  state(): UpdateStatus {
    return { ...this.status };
  }

  /** Checks now and then daily; nothing happens while updates are off. */
  start(): void {
    if (this.timer) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Looks for an update; when one is found the download runs in the background (`ready` when done). */
  async check(): Promise<UpdateStatus> {
    if (!this.config.enabled || !this.updater) return this.state();
    try {
      const result = await this.updater.checkForUpdates();
      // The download's own failures arrive as 'error' events; keep the rejection from going unhandled.
      result?.downloadPromise?.catch(() => undefined);
    } catch (error) {
      // electron-updater also emits 'error'; this covers a failure before it could.
      if (this.status.state !== 'error') this.set({ state: 'error', message: `The update check failed: ${firstLine((error as Error).message)}`, checkedAt: this.checkedAt() });
    }
    return this.state();
  }

  /** Restarts into the downloaded update (the user asked for it). */
  install(): UpdateStatus {
    if (this.status.state !== 'ready' || !this.updater) throw new AppError('validation', 'No update has been downloaded yet.');
    this.updater.quitAndInstall(false, true);
    return this.state();
  }

  /** Switches between stable and beta, unless the policy fixes the channel. */
  async setChannel(channel: UpdateChannel): Promise<UpdateStatus> {
    if (this.config.channelFixed && channel !== this.config.channel) throw new AppError('validation', `The update channel is fixed. ${FIXED_BY_POLICY}`, { fields: { channel: [FIXED_BY_POLICY] } });
    this.userChannel = channel;
    await writeJsonAtomic(path.join(this.options.stateDir, 'channel.json'), { channel }, undefined, { compact: true });
    await this.configure();
    if (this.config.enabled) void this.check();
    return this.state();
  }

  private async configure(): Promise<void> {
    this.config = resolveUpdateConfig({ ...this.options.inputs, userChannel: this.userChannel });
    const c = this.config;
    this.status = {
      state: c.enabled ? 'idle' : 'off', message: c.reason, currentVersion: this.options.currentVersion, version: null, releaseNotes: null, percent: null,
      url: c.url, channel: c.channel, channelFixed: c.channelFixed, checkedAt: null,
    };
    this.options.onState?.(this.state());
    if (!c.enabled || !c.url) return;
    // The generic feed as electron-builder would have written it into app-update.yml, from the resolved settings.
    const file = path.join(this.options.stateDir, 'app-update.yml');
    const lines = [
      'provider: generic',
      `url: ${JSON.stringify(c.url)}`,
      `channel: ${feedChannelName(c.channel)}`,
      'updaterCacheDirName: swath-updater',
      ...(this.options.publisherNames?.length ? ['publisherName:', ...this.options.publisherNames.map((n) => `  - ${JSON.stringify(n)}`)] : []),
    ];
    await writeFileAtomic(file, `${lines.join('\n')}\n`);
    if (!this.updater) this.attach(await this.options.updater());
    const u = this.updater!;
    u.updateConfigPath = file;
    u.allowPrerelease = c.channel === 'beta';
    // Never install an older version, whatever the channel (setting a channel would allow it otherwise).
    u.allowDowngrade = false;
  }

  private set(patch: Partial<UpdateStatus>): void {
    this.status = { ...this.status, ...patch };
    this.options.onState?.(this.state());
  }
}

function notesOf(info: UpdateInfo): string | null {
  const notes = info.releaseNotes;
  if (!notes) return null;
  if (typeof notes === 'string') return notes;
  return notes.map((n) => `${n.version}: ${n.note ?? ''}`).join('\n\n');
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}
