/** The downloads feature's public surface: what other features may use of it. */
export { useDownloadsStore, type DownloadJob } from './stores/downloads';
