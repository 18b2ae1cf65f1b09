/** Typed IPC over the contract: the transport-agnostic dispatcher plus the Electron transport. */
export * from './dispatcher';
export * from './errors';
export * from './sender-policy';
export * from './electron-ipc';
export * from './table';
export * from './events';
