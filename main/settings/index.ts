/** The user's settings: the file in userData and the settings:* channels (the policy puts its values over them, in main/policy). */
export { SettingsStore } from './store';
export { settingsHandlers, type SettingsChannel } from './handlers';
