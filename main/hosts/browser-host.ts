import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline, Readable } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { RASTER_SCHEME, serveLibraryFile, type RasterFileLookup } from '../library/raster-protocol';
import { callIdSchema, channelNames, eventNames, events, methodName, type EventName, type EventPayload } from '../../preload/contract';
import { createDispatcher, type HandlerTable } from '../ipc';
import { CONTENT_SECURITY_POLICY, withMetaContentSecurityPolicy } from './security';
import { isLoopbackHost } from '../shared/loopback-host';
import type { SecretRegistry } from '../platform/secrets';

/**
 * The browser host (development and end-to-end tests only, never packaged):
 * serves the built renderer on loopback and carries the same IPC contract over
 * a WebSocket guarded by a random token and an Origin check; library rasters
 * go only to a page opened with the token (an HttpOnly, SameSite cookie).
 */

/** Options of {@link startBrowserHost}. */
export interface BrowserHostOptions {
  /** The built renderer folder (out/renderer). */
  rendererDir: string;
  handlers: HandlerTable;
  /** The app core's secret registry (`SwathApp.secrets`): every answer is sealed against it. */
  secrets: SecretRegistry;
  port?: number;
  /** Events a page receives as soon as it connects (e.g. the current connection state). */
  greeting?: () => { event: EventName; payload: unknown }[];
  /** Library rasters, served at /__swath/raster/<id> as the app serves swath-raster://<id>. */
  rasters?: RasterFileLookup;
  /** Fixed token for tests; random otherwise. */
  token?: string;
  /** The CSP (header and meta tag); the admin policy's basemap changes it. Defaults to the app's. */
  contentSecurityPolicy?: string;
  log?: (message: string) => void;
}

/** A running browser host. */
export interface BrowserHost {
  /** The URL to open, token included. */
  url: string;
  origin: string;
  token: string;
  /** Pushes a contract event to every connected page. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  close(): Promise<void>;
}

const BRIDGE_PATH = '/__swath/bridge.js';
const WS_PATH = '/__swath/ws';
/** Where the browser host serves library rasters (the app uses swath-raster://<id>). */
export const RASTER_PATH = '/__swath/raster/';
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.wasm': 'application/wasm',
};

/** Starts the host on 127.0.0.1. */
export async function startBrowserHost(options: BrowserHostOptions): Promise<BrowserHost> {
  const token = options.token ?? randomBytes(24).toString('hex');
  const log = options.log ?? (() => undefined);
  const csp = options.contentSecurityPolicy ?? CONTENT_SECURITY_POLICY;
  const rendererDir = path.resolve(options.rendererDir);
  let origin = '';
  const dispatcher = createDispatcher(options.handlers, { isAllowedSender: (url) => new URL(url).origin === origin, secrets: options.secrets });
  const sameSecret = (given: string | null | undefined, secret: string): boolean => {
    const a = Buffer.from(given ?? '');
    const b = Buffer.from(secret);
    return a.length === b.length && timingSafeEqual(a, b);
  };
  const tokenMatches = (given: string | null | undefined): boolean => sameSecret(given, token);
  // The raster cookie has its own secret: cookies ignore ports, so other loopback servers may see it,
  // and it must not open the WebSocket.
  const rasterSecret = randomBytes(24).toString('hex');
  const port = (): number => Number(new URL(origin).port);
  // Cookies are per host, not per port: one name per host so two hosts on 127.0.0.1 don't clash.
  const rasterCookie = (): string => `swath-raster-${port()}`;
  const sockets = new Set<WebSocket>();

  const server = http.createServer((req, res) => {
    // DNS rebinding: a page whose name now resolves to 127.0.0.1 still sends its own name as Host.
    if (!isLoopbackHost(req.headers.host, port())) return void res.writeHead(421, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Misdirected request.');
    serveStatic(req, res).catch((error: unknown) => {
      log(`browser host: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  async function serveStatic(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405).end();
    if (url.pathname === BRIDGE_PATH) return send(res, 200, '.js', Buffer.from(bridgeScript()));
    if (url.pathname.startsWith(RASTER_PATH) && options.rasters) {
      // Only the page opened with the token reads rasters (its cookie), not any local process or site.
      if (!sameSecret(cookieOf(req, rasterCookie()), rasterSecret)) return void res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Open the page with its token first.');
      const answer = await serveLibraryFile(options.rasters, `${RASTER_SCHEME}://${url.pathname.slice(RASTER_PATH.length)}`, { range: req.headers.range }, { method: req.method });
      res.writeHead(answer.status, answer.headers);
      if (!answer.body) return void res.end();
      // pipeline, not pipe: a client that goes away (a closed preview) cancels the body, which closes the file.
      return void pipeline(Readable.fromWeb(answer.body as never), res, () => undefined);
    }
    const rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, '');
    const file = path.resolve(rendererDir, rel);
    // Only files inside the renderer folder; no traversal.
    if (file !== rendererDir && !file.startsWith(rendererDir + path.sep)) return void res.writeHead(404).end();
    let stat;
    try {
      stat = await fs.stat(file);
    } catch {
      return void res.writeHead(404).end();
    }
    if (!stat.isFile()) return void res.writeHead(404).end();
    if (rel === 'index.html') {
      // The page gets the WebSocket bridge as its first script, standing in for the Electron preload.
      // Deferred: it still runs before the app's module script (both wait for the parser and run in
      // document order), and does not hold up the parser and the module's download.
      const html = withMetaContentSecurityPolicy(await fs.readFile(file, 'utf8'), csp).replace('<head>', `<head>\n    <script defer src="${BRIDGE_PATH}"></script>`);
      // Opened with the token: a same-site, script-less cookie lets its raster requests through.
      if (tokenMatches(url.searchParams.get('token'))) res.setHeader('Set-Cookie', `${rasterCookie()}=${rasterSecret}; HttpOnly; SameSite=Strict; Path=${RASTER_PATH}`);
      return send(res, 200, '.html', Buffer.from(html));
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': stat.size, 'Cache-Control': 'no-cache' });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).pipe(res);
  }

  function send(res: ServerResponse, status: number, ext: string, body: Buffer): void {
    res.writeHead(status, {
      'Content-Type': TYPES[ext]!,
      'Content-Length': body.length,
      'Cache-Control': 'no-store',
      'Content-Security-Policy': csp,
    });
    res.end(body);
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', origin);
    const tokenOk = url.pathname === WS_PATH && tokenMatches(url.searchParams.get('token'));
    // A page on another origin could otherwise drive the app through the user's browser.
    const originOk = req.headers.origin === origin && isLoopbackHost(req.headers.host, port());
    if (!tokenOk || !originOk) {
      log(`browser host: refused WebSocket (${!tokenOk ? 'bad token' : `origin ${req.headers.origin ?? 'none'}, host ${req.headers.host ?? 'none'}`})`);
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => {
    sockets.add(ws);
    for (const { event, payload } of options.greeting?.() ?? []) ws.send(JSON.stringify({ event, payload }));
    // The connection is the calls' scope: it cancels only its own calls, and closing it aborts them.
    ws.on('close', () => {
      sockets.delete(ws);
      dispatcher.release(ws);
    });
    ws.on('message', (raw) => {
      let msg: { id?: unknown; channel?: unknown; payload?: unknown; options?: unknown; cancel?: unknown };
      try {
        msg = JSON.parse(String(raw));
      } catch {
        return;
      }
      if (msg === null || typeof msg !== 'object') return;
      // { cancel: { callId } } is the cancel message; the dispatcher validates it like a request.
      if ('cancel' in msg) return void dispatcher.cancel(ws, msg.cancel, `${origin}/`);
      if (!callIdSchema.safeParse(msg.id).success || typeof msg.channel !== 'string') return;
      void dispatcher.dispatch(msg.channel, msg.payload, `${origin}/`, undefined, { sender: ws, options: msg.options }).then((result) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id: msg.id, result }));
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    emit(event, payload) {
      const text = JSON.stringify({ event, payload: events[event].parse(payload) });
      for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text);
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A cookie's value from a request, or null. */
function cookieOf(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/** The page-side bridge: `window.swath` with one method per channel, over the WebSocket. */
function bridgeScript(): string {
  const methods = Object.fromEntries(channelNames.map((c) => [methodName(c), c]));
  return `(() => {
  'use strict';
  const METHODS = ${JSON.stringify(methods)};
  const EVENTS = ${JSON.stringify(eventNames)};
  const params = new URLSearchParams(location.search);
  const token = params.get('token') || sessionStorage.getItem('swath-token');
  if (params.has('token')) {
    // Keep the token out of the address bar and history once it is read.
    sessionStorage.setItem('swath-token', token);
    params.delete('token');
    history.replaceState(null, '', location.pathname + (params.toString() ? '?' + params : '') + location.hash);
  }
  const listeners = new Map(EVENTS.map((e) => [e, new Set()]));
  const pending = new Map();
  let nextId = 1;
  let socket;
  let opened;
  function connect() {
    socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '${WS_PATH}?token=' + encodeURIComponent(token || ''));
    opened = new Promise((resolve) => {
      socket.addEventListener('open', () => resolve(true));
      socket.addEventListener('close', () => resolve(false));
    });
    socket.addEventListener('message', (e) => {
      const msg = JSON.parse(e.data);
      if (msg.event) { for (const cb of listeners.get(msg.event) || []) cb(msg.payload); return; }
      const p = pending.get(msg.id);
      if (p) { pending.delete(msg.id); p(msg.result); }
    });
    socket.addEventListener('close', () => {
      for (const p of pending.values()) p({ ok: false, error: { kind: 'io', message: 'The connection to the Swath host was lost.' } });
      pending.clear();
      setTimeout(connect, 1000);
    });
  }
  connect();
  const api = {};
  for (const [method, channel] of Object.entries(METHODS)) {
    api[method] = async (request, options) => {
      if (!(await opened)) return { ok: false, error: { kind: 'io', message: 'The Swath host is not reachable.' } };
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        socket.send(JSON.stringify({ id, channel, payload: request === undefined ? {} : request, options }));
      });
    };
  }
  api.cancel = (callId) => {
    if (!Number.isSafeInteger(callId) || callId < 1) throw new TypeError('A call id is a positive integer.');
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ cancel: { callId } }));
  };
  api.on = (event, cb) => {
    const set = listeners.get(event);
    if (!set) throw new Error('Unknown event "' + event + '".');
    set.add(cb);
    return () => set.delete(cb);
  };
  Object.defineProperty(window, 'swath', { value: Object.freeze(api), writable: false, configurable: false });
})();
`;
}
