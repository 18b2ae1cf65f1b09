import path from 'node:path';
import { z } from 'zod';
import { settingsSchema } from '../../preload/contract';
import { AppError } from '../../common/errors.js';
import { JsonStore, readJsonFile } from '../library/atomic-json';

/** User settings kept by main (download folder, theme, the optional online basemap). */
export type Settings = z.infer<typeof settingsSchema>;

/**
 * The settings as every reader in main gets them: the effective ones (main/policy/settings.ts puts
 * the admin policy over the user's), so a download, a watch, an analysis save and an export all
 * write under the same folder.
 */
export interface SettingsPort {
  get(): Settings;
  set(patch: Partial<Settings>): Promise<Settings>;
  /** Where a download goes: `given`, else the download folder (refused when a policy fixes another). */
  downloadDir(given?: string): string;
}

/** The settings file in userData, written atomically. */
export class SettingsStore implements SettingsPort {
  private store: JsonStore;

  private constructor(
    file: string,
    private value: Settings,
  ) {
    this.store = new JsonStore(file, () => this.value);
  }

  /** Loads settings, filling defaults for anything missing or invalid. */
  static async open(dir: string, defaults: Settings, log?: (line: string) => void): Promise<SettingsStore> {
    const file = path.join(dir, 'settings.json');
    let raw: unknown = null;
    try {
      raw = await readJsonFile(file);
    } catch (e) {
      log?.(`settings: ${(e as Error).message}; using defaults`);
    }
    const merged = { ...defaults, ...(raw && typeof raw === 'object' ? raw : {}) };
    const parsed = settingsSchema.safeParse(merged);
    return new SettingsStore(file, parsed.success ? parsed.data : defaults);
  }

  /** The current settings. */
  get(): Settings {
    return { ...this.value };
  }

  downloadDir(given?: string): string {
    return given ?? this.value.downloadDir;
  }

  /** Applies a change after checking it; the download folder must be an absolute path. */
  async set(patch: Partial<Settings>): Promise<Settings> {
    if (patch.downloadDir !== undefined && !path.isAbsolute(patch.downloadDir)) {
      throw new AppError('validation', 'The download folder must be an absolute path.', { fields: { downloadDir: ['Must be an absolute path, such as /home/me/Imagery.'] } });
    }
    this.value = { ...this.value, ...patch };
    await this.store.save();
    return this.get();
  }
}
