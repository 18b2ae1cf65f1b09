/** The connection to the active profile's service, and its channels (app:info, service:*). */
export { ServiceSession, type SessionDeps, type SessionStatus } from './session';
export { clientBinarySource } from './binary-source';
export { connectionHandlers, type ConnectionChannel, type ConnectionHandlerDeps } from './handlers';
