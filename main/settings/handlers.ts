import type { HandlerTable } from '../ipc';
import type { SettingsPort } from '../platform/settings';

/** The channels of the settings. */
export type SettingsChannel = 'settings:get' | 'settings:set';

/** `settings:get` and `settings:set` on the effective settings (a value the policy fixes is refused by the port). */
export function settingsHandlers(settings: SettingsPort): Pick<HandlerTable, SettingsChannel> {
  return {
    'settings:get': () => settings.get(),
    'settings:set': (patch) => settings.set(patch),
  };
}
