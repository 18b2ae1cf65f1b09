/** The local simulator of the whole service contract. */
export { startSimulator, type RunningSimulator, type SimulatorOptions } from './server.js';
export { buildSpecification, CONTRACT_VERSION, OPERATIONS } from './spec.js';
export { DEFAULT_KEYS, VOUCHERS } from './catalog.js';
export { DEMO_AREAS } from './seed.js';
