/** The account feature's public surface: what other features may use of it. */
export { useAccountStore } from './stores/account';
