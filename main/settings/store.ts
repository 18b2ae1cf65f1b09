import path from 'node:path';
import { settingsSchema } from '../../preload/contract';
import type { Settings, SettingsPort } from '../platform/settings';
import { AppError } from '../../common/errors.js';
import { JsonStore, readJsonFile } from '../shared/files.js';

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
