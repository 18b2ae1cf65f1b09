/** Imagery: search, availability and estimates over the active profile's service (the imagery:* channels). */
export { imageryHandlers, type ImageryChannel, type ImageryHandlerDeps } from './handlers';
