/** Tasking: models, order estimates and orders through the spend guard (the tasking:* channels). */
export { taskingHandlers, type TaskingChannel, type TaskingHandlerDeps } from './handlers';
