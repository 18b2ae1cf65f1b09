import type { ChildProcess } from 'node:child_process';
import type { StartSimulator } from '../app/embedded-service';
import { entryPoint, forkEntry, type EntryPoint } from '../shared/entry-point';
import type { FromSimulatorChild, ToSimulatorChild } from '../../simulator/child-protocol';

/**
 * The embedded demo service in its own process: its AOI validation and raster
 * generation never block main's thread. The app uses an Electron utility process
 * (electron-host.ts), the browser host a Node child process ({@link forkedSimulator}); both speak
 * the messages of simulator/child-protocol.ts.
 */

/** A started child, whatever kind of process it is. */
export interface SimulatorChild {
  send(message: ToSimulatorChild): void;
  onMessage(listener: (message: FromSimulatorChild) => void): void;
  onExit(listener: (code: number | null) => void): void;
  kill(): void;
}

/** How long a child may take to flush its state and exit after `close` before it is killed. */
export const CHILD_CLOSE_TIMEOUT_MS = 2_500;

/** Where the child's entry is: simulator/child.ts from source, out/main/simulator-child.js bundled. */
export function simulatorChildEntry(): EntryPoint {
  return entryPoint(import.meta.url, '../../simulator/child.ts', 'simulator-child');
}

/** A StartSimulator that runs the simulator in a child made by `spawn`; the URL comes back over IPC. */
export function simulatorInChild(spawn: () => SimulatorChild): StartSimulator {
  return ({ log, faults, ...options }) => new Promise((resolve, reject) => {
    const child = spawn();
    let ready = false;
    let exited = false;
    let closing = false;
    const exitWaiters: (() => void)[] = [];
    child.onExit((code) => {
      exited = true;
      for (const w of exitWaiters.splice(0)) w();
      if (!ready) reject(new Error(`The demo service process exited (code ${code}) before it was ready.`));
      else if (!closing) log?.(`The demo service process exited unexpectedly (code ${code}).`);
    });
    child.onMessage((message) => {
      if (message.type === 'log') log?.(message.line);
      else if (message.type === 'failed') reject(new Error(message.message));
      else if (message.type === 'ready' && !ready) {
        ready = true;
        resolve({
          url: message.url,
          port: message.port,
          close: async () => {
            if (exited) return;
            closing = true;
            const gone = new Promise<void>((r) => exitWaiters.push(r));
            child.send({ type: 'close' });
            const timer = setTimeout(() => child.kill(), CHILD_CLOSE_TIMEOUT_MS);
            await gone;
            clearTimeout(timer);
          },
        });
      }
    });
    child.send({ type: 'start', options: { ...options, ...(typeof faults === 'string' ? { faults } : {}) } });
  });
}

/** A Node child process (running simulator/child) as a {@link SimulatorChild}. */
export function nodeSimulatorChild(child: ChildProcess): SimulatorChild {
  return {
    send: (message) => {
      if (child.connected) child.send(message);
    },
    onMessage: (listener) => void child.on('message', (m) => listener(m as FromSimulatorChild)),
    onExit: (listener) => {
      // A child that cannot start at all (spawn error) counts as one that exited.
      child.on('error', () => listener(child.exitCode));
      child.on('exit', (code) => listener(code));
    },
    kill: () => void child.kill(),
  };
}

/** The demo service in a Node child process (the browser host, tests, benchmarks). */
export function forkedSimulator(entry: EntryPoint = simulatorChildEntry()): StartSimulator {
  return simulatorInChild(() => nodeSimulatorChild(forkEntry(entry)));
}
