/** The connection to the active profile's service, and its channels (app, service, account, billing, imagery, tasking). */
export { ServiceSession, type SessionDeps, type SessionStatus } from './session';
export { clientBinarySource } from './binary-source';
export { sessionHandlers, type SessionChannel, type SessionHandlerDeps } from './handlers';
