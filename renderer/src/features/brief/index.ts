/** The brief feature's public surface: what other features may use of it (opening the dialog). */
export { useBriefOpenStore } from './stores/brief-open';
export type { BriefSeries } from './model/print-page';
