/** The timelapse feature's public surface: what other features may use of it (opening the film dialog). */
export { useTimelapseOpenStore } from './stores/timelapse-open';
