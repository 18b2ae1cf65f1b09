/** The billing feature's public surface: what other features may use of it. */
export { useBillingStore } from './stores/billing';
