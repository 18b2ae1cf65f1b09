export * from './config';
export * from './service';
export { openUpdates, type OpenUpdateService, type UpdateChannel, type Updates } from './handlers';
