import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MemoryKeychainBackend } from '../../../main/profiles';
import { createDispatcher, type Dispatcher } from '../../../main/ipc';
import { createApp, type AppOptions, type SwathApp } from '../../../main/app/app';
import { startSimulator } from '../../../simulator';

const tlsFixture = (name: string) => path.join(import.meta.dirname, '../../fixtures/tls', name);

/** A loopback server that records every request (with its x-api-key) and answers with `handler`. */
export interface Recorder {
  url: string;
  seen: { url: string; key: string | undefined; host: string | undefined }[];
  close(): Promise<void>;
}

/** Starts a recording server over http, or https with a throwaway self-signed certificate. */
export async function startRecorder(handler: (req: IncomingMessage, res: ServerResponse) => void, options: { tls?: boolean; host?: string } = {}): Promise<Recorder> {
  const seen: Recorder['seen'] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ url: req.url ?? '', key: req.headers['x-api-key'] as string | undefined, host: req.headers.host });
    req.resume();
    req.on('end', () => handler(req, res));
  };
  // A self-signed certificate for 127.0.0.1 kept in the fixtures (made once with
  // `openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1`),
  // so that no test run starts openssl. Nothing trusts it: the servers that use it play another origin.
  const server = options.tls
    ? https.createServer({ key: readFileSync(tlsFixture('loopback.key.pem')), cert: readFileSync(tlsFixture('loopback.cert.pem')) }, listener)
    : http.createServer(listener);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The app core behind a dispatcher, as a renderer reaches it, with an in-memory keychain. */
export interface TestApp {
  app: SwathApp;
  dir: string;
  logs: string[];
  call(channel: string, payload?: unknown): Promise<any>;
  close(): Promise<void>;
}

export const SENDER = 'app://swath/index.html';

/** Starts the app core in a private folder. */
export async function startTestApp(overrides: Partial<AppOptions> = {}): Promise<TestApp> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-sec-'));
  const logs: string[] = [];
  const app = await createApp({
    userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), version: '0.0.0', platform: 'linux', startSimulator,
    emit: () => undefined, keychainBackend: new MemoryKeychainBackend(), log: (l) => logs.push(l), ...overrides,
  });
  const d: Dispatcher = createDispatcher(app.handlers, { isAllowedSender: (u) => u === SENDER, secrets: app.secrets });
  return {
    app, dir, logs,
    call: (channel, payload = {}) => d.dispatch(channel, payload, SENDER) as Promise<any>,
    close: async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
