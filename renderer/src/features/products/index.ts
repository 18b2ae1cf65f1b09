/** The products feature's public surface: what other features may use of it. */
export { useProductsStore } from './stores/products';
