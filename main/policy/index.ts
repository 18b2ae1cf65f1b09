export * from './schema';
export * from './load';
export * from './apply';
export * from './handlers';
