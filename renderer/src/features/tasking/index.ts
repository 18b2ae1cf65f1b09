/** The tasking feature's public surface: what other features may use of it. */
export { useTaskingStore } from './stores/tasking';
export { useTaskingOrdersStore } from './stores/tasking-orders';
