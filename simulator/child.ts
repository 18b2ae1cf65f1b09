import { startRasterThreads } from './raster/index.js';
import { startSimulator, type RunningSimulator } from './server.js';
import type { FromSimulatorChild, ToSimulatorChild } from './child-protocol.js';

/**
 * Entry of the demo service's own process, so its work (AOI validation, raster generation) never
 * runs on main's thread. Under Electron it is a utility process (`process.parentPort`); in the
 * browser host a Node child process (`process.send`). It starts the simulator when main says
 * `start`, answers with its URL, forwards its log lines, and closes (state flushed) on `close` or
 * when main goes away.
 */

interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
}

const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;

function send(message: FromSimulatorChild): void {
  if (parentPort) parentPort.postMessage(message);
  else process.send?.(message);
}

let sim: RunningSimulator | null = null;
let closing: Promise<void> | null = null;

function close(): Promise<void> {
  closing ??= (async () => {
    await sim?.close().catch(() => undefined);
    send({ type: 'closed' });
    process.exit(0);
  })();
  return closing;
}

async function onMessage(message: ToSimulatorChild): Promise<void> {
  if (message.type === 'close') return void close();
  if (message.type !== 'start' || sim) return;
  try {
    sim = await startSimulator({ ...message.options, log: (line) => send({ type: 'log', line }) });
    send({ type: 'ready', url: sim.url, port: sim.port });
    // In the background: the app does not wait for them, the first composite does not start them.
    startRasterThreads().catch((e: unknown) => send({ type: 'log', line: `raster threads: ${(e as Error).message}` }));
  } catch (error) {
    send({ type: 'failed', message: (error as Error).message });
    process.exit(1);
  }
}

if (parentPort) parentPort.on('message', (e) => void onMessage(e.data as ToSimulatorChild));
else {
  process.on('message', (m) => void onMessage(m as ToSimulatorChild));
  // Main went away (crashed or killed): no orphan keeps the port.
  process.on('disconnect', () => void close());
}
