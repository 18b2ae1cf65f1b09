/** The library feature's public surface: what other features may use of it. */
export { useLibraryStore } from './stores/library';
export { usePreviewStore } from './stores/preview';
