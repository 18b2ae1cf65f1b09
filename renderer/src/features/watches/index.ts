/** The watches feature's public surface: what other features may use of it. */
export { draftFromOrder } from './model/watch-draft';
export { useWatchesStore } from './stores/watches';
