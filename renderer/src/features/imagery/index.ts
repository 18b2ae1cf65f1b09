/** The imagery feature's public surface: what other features may use of it. */
export { useImageryStore } from './stores/imagery';
