import type { Contribution } from '../../platform/contributions';

/** Imagery: its panel, the "go to" shortcuts of its steps and the date keys its panel handles. */
export default {
  feature: 'imagery',
  panel: {
    id: 'imagery',
    name: 'Imagery',
    icon: 'imagery',
    keys: '1',
    summary: 'Search dates, check, estimate and download composites, tiles and mini-tiles.',
    load: () => import('./views/ImageryPanel.vue'),
  },
  shortcuts: [
    { id: 'go-search', keys: 'Alt+S', group: 'Go to', description: 'Imagery: Search dates', focus: { panel: 'imagery', testid: 'search-dates' } },
    { id: 'go-check', keys: 'Alt+C', group: 'Go to', description: 'Imagery: Check availability', focus: { panel: 'imagery', testid: 'check' } },
    { id: 'go-estimate', keys: 'Alt+M', group: 'Go to', description: 'Imagery: Estimate', focus: { panel: 'imagery', testid: 'estimate' } },
    { id: 'go-download', keys: 'Alt+D', group: 'Go to', description: 'Imagery: Download composite', focus: { panel: 'imagery', testid: 'download' } },
    { id: 'search-dates', keys: 'Ctrl+Enter', group: 'Imagery', description: 'Search dates (Imagery panel)' },
    { id: 'prev-date', keys: '[', group: 'Imagery', description: 'Previous available date' },
    { id: 'next-date', keys: ']', group: 'Imagery', description: 'Next available date' },
  ],
} satisfies Contribution;
