import type { ConnectionState, EventName, EventPayload } from '../../preload/contract';
import { startEmbeddedService, type EmbeddedService, type StartSimulator } from '../hosts/embedded-service';
import { createHandlers, type HandlerTable, type ServiceEndpoint } from '../ipc';

/**
 * The app without its window: the embedded service, the handler table and the
 * events it pushes. The Electron host and the browser host both mount this, so
 * they serve the same contract with the same behaviour.
 */

/** Pushes a contract event to whatever the host has connected. */
export type Emit = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/** What {@link createApp} needs from its host. */
export interface AppOptions {
  userDataDir: string;
  version: string;
  platform: string;
  startSimulator: StartSimulator;
  emit: Emit;
  log?: (message: string) => void;
}

/** A running app core. */
export interface SwathApp {
  handlers: HandlerTable;
  /** The last connection state, for a host that connects a new window later. */
  connection(): EventPayload<'connection:state'>;
  close(): Promise<void>;
}

/** Starts the app core: the embedded demo service now, handlers that wait for it. */
export function createApp(options: AppOptions): SwathApp {
  const log = options.log ?? (() => undefined);
  let connection: EventPayload<'connection:state'> = { state: 'connecting' };
  const setConnection = (state: ConnectionState, detail?: string): void => {
    if (connection.state === state && connection.detail === detail) return;
    connection = detail === undefined ? { state } : { state, detail };
    options.emit('connection:state', connection);
  };

  const embedded: Promise<EmbeddedService> = startEmbeddedService(options.userDataDir, options.startSimulator, (line) => log(`simulator: ${line}`));
  embedded.then(
    () => setConnection('online'),
    (error: unknown) => {
      log(`Demo service failed to start: ${String(error)}`);
      setConnection('offline', 'The demo service failed to start.');
    },
  );
  const service = (): Promise<ServiceEndpoint> => embedded.then((s) => s.endpoint);

  return {
    handlers: createHandlers({ version: options.version, platform: options.platform, service, onConnectionState: setConnection }),
    connection: () => connection,
    close: () => embedded.then((s) => s.close()),
  };
}
