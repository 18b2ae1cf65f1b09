import type { Contribution } from '../../platform/contributions';

/** Tasking: its panel, the "go to" shortcuts of an order, and the orders' areas as a first start's view. */
export default {
  feature: 'tasking',
  panel: {
    id: 'tasking',
    name: 'Tasking',
    icon: 'tasking',
    keys: '2',
    summary: 'Estimate, create, track and cancel tasking orders.',
    load: () => import('./views/TaskingPanel.vue'),
  },
  shortcuts: [
    { id: 'go-tasking-estimate', keys: 'Alt+T', group: 'Go to', description: 'Tasking: Estimate the order', focus: { panel: 'tasking', testid: 'estimate-button', tab: 'tab-order' } },
    {
      id: 'go-place-order',
      keys: 'Alt+O',
      group: 'Go to',
      description: 'Tasking: Place the order (asks to confirm)',
      focus: { panel: 'tasking', testid: 'place-button', tab: 'tab-order', missing: 'estimate the order first (Alt+T)' },
    },
  ],
  // Only on a first start (no saved view), so the orders' code loads then.
  startView: {
    areas: async () => {
      const orders = (await import('./stores/tasking-orders')).useTaskingOrdersStore();
      const r = await orders.refresh();
      return r.ok ? orders.rows.map((row) => row.summary.geometry) : [];
    },
    // The map shows the orders the first view is about (the Tasking panel takes the layer over when opened).
    shown: () => {
      void Promise.all([import('./views/tasking-map'), import('./stores/tasking-orders')]).then(([{ drawOrders }, { useTaskingOrdersStore }]) => drawOrders(useTaskingOrdersStore().rows, null));
    },
  },
} satisfies Contribution;
