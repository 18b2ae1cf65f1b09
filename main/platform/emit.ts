import type { EventName, EventPayload } from '../../preload/contract';

/** Pushes a contract event to whatever the host has connected. */
export type Emit = <E extends EventName>(event: E, payload: EventPayload<E>) => void;
