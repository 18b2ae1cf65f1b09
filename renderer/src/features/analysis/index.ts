/** The analysis feature's public surface: what other features may use of it. */
export { useAnalysisStore } from './stores/analysis';
