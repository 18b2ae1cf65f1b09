import type { z } from 'zod';
import type { settingsSchema } from '../../preload/contract';

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
