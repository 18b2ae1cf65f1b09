/** The settings feature's public surface: what other features and the shell may use of it. */
export { useSettingsStore } from './stores/settings';
