/** The IPC contract shared by main, preload and renderer; it imports nothing but zod. */
export * from './errors';
export * from './channels';
export * from './exports';
export * from './analysis';
export * from './watches';
export * from './spend';
export * from './notifications';
export * from './events';
export * from './api';
export * from './calls';
export * from './redaction';
export * from './about';
export * from './policy';
export * from './diagnostics';
export * from './updates';
export * from './team';
export * from './bounds';
