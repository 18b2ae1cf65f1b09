import type { Contribution } from '../../platform/contributions';

/**
 * Analysis: time series and change layers, in the Library panel's `analysis` slot, loaded with their
 * chart only when the panel shows them (the library has rasters).
 */
export default {
  feature: 'analysis',
  fills: [{ panel: 'library', slot: 'analysis', load: () => import('./views/AnalysisBlock.vue') }],
} satisfies Contribution;
