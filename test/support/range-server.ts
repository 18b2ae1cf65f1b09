import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseRange } from '../../main/library/raster-protocol';

/**
 * A static web server with Range support over a folder, as IT would put in front of the team's
 * share (nginx, caddy): https with a throwaway self-signed certificate made by `openssl`, or plain
 * http on 127.0.0.1. `behaviour` makes it misbehave in the ways the range reader must refuse.
 */
export type RangeServerBehaviour =
  | 'good'
  /** Ignores Range: 200 with the whole file. */
  | 'ignore-range'
  /** 206 with a Content-Range for other bytes than asked. */
  | 'wrong-range'
  /** 206 with the right headers but more bytes than asked (no Content-Length). */
  | 'too-long'
  /** 302 to the same path on another origin (`redirectTo`). */
  | 'redirect-other'
  /** 302 to the same file under /same/ on this origin. */
  | 'redirect-same'
  /** Sends the headers and then nothing until the client goes away. */
  | 'stall';

export interface RangeServer {
  /** The base URL that serves the folder (ends with /). */
  url: string;
  /** The certificate (PEM) a client must trust (https only). */
  certPem: string | null;
  behaviour: RangeServerBehaviour;
  /** Where 'redirect-other' sends the client. */
  redirectTo: string;
  /** Headers of every request received. */
  requests: { url: string; headers: http.IncomingHttpHeaders }[];
  /** Requests whose client went away before the answer ended. */
  abandoned: number;
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl in a throwaway folder. */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-cert-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Serves `root` (see the module comment); `tls`: https with a self-signed certificate. */
export async function startRangeServer(root: string, options: { tls?: boolean } = {}): Promise<RangeServer> {
  const cert = options.tls ? selfSignedCert() : null;
  const state: RangeServer = {
    url: '', certPem: cert?.cert ?? null, behaviour: 'good', redirectTo: 'https://127.0.0.2:1/', requests: [], abandoned: 0,
    close: async () => undefined,
  };
  const handler = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    state.requests.push({ url: req.url ?? '', headers: req.headers });
    res.on('close', () => {
      if (!res.writableFinished) state.abandoned++;
    });
    const raw = new URL(req.url ?? '/', 'http://x').pathname;
    let rel = decodeURIComponent(raw);
    if (state.behaviour === 'redirect-other') return void res.writeHead(302, { Location: new URL(raw, state.redirectTo).href }).end();
    if (state.behaviour === 'redirect-same' && !rel.startsWith('/same/')) return void res.writeHead(302, { Location: `/same${raw}` }).end();
    if (rel.startsWith('/same/')) rel = rel.slice('/same'.length);
    const file = path.join(root, ...rel.split('/').filter((s) => s && s !== '..'));
    const st = await stat(file).catch(() => null);
    if (!st?.isFile()) return void res.writeHead(404).end();
    const fh = await open(file, 'r');
    try {
      const range = parseRange(req.headers.range, st.size);
      if (state.behaviour === 'ignore-range' || range.kind !== 'range') {
        res.writeHead(200, { 'Content-Length': st.size, 'Accept-Ranges': 'bytes' });
        return void res.end(await fh.readFile());
      }
      const { start, end } = range;
      const sentStart = state.behaviour === 'wrong-range' ? start + 1 : start;
      const sentEnd = state.behaviour === 'too-long' ? Math.min(st.size - 1, end + 100) : end;
      const buf = Buffer.alloc(sentEnd - sentStart + 1);
      await fh.read(buf, 0, buf.length, sentStart);
      const headers: http.OutgoingHttpHeaders = { 'Content-Range': `bytes ${state.behaviour === 'too-long' ? start : sentStart}-${end}/${st.size}`, 'Accept-Ranges': 'bytes' };
      if (state.behaviour !== 'too-long') headers['Content-Length'] = buf.length;
      res.writeHead(206, headers);
      if (state.behaviour === 'stall') return void res.flushHeaders();
      res.end(buf);
    } finally {
      await fh.close();
    }
  };
  const server = cert
    ? https.createServer({ key: cert.key, cert: cert.cert }, (req, res) => void handler(req, res))
    : http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `${cert ? 'https' : 'http'}://127.0.0.1:${port}/`;
  state.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return state;
}
