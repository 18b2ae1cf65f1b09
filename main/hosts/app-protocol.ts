import { createReadStream } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { CONTENT_SECURITY_POLICY, withMetaContentSecurityPolicy } from './security';

/**
 * The renderer's own origin, app://swath/, instead of file://. Under file://
 * every local file shares the page's (opaque) origin, so CSP 'self' and
 * file access reach the whole disk; app://swath is one standard, secure origin
 * that serves the built renderer folder and nothing else. Kept free of
 * Electron so the path rules can be tested directly.
 */

/** The privileged scheme the renderer is served from. */
export const APP_SCHEME = 'app';
/** Its only host. */
export const APP_HOST = 'swath';
/** The document the window loads (and the only sender the IPC policy accepts in a packaged app). */
export const APP_RENDERER_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.jpg': 'image/jpeg', '.ico': 'image/x-icon', '.woff': 'font/woff', '.woff2': 'font/woff2', '.wasm': 'application/wasm',
  '.map': 'application/json',
};

/** An answer of the app:// handler. */
export interface AppFileAnswer {
  status: number;
  headers: Record<string, string>;
  body: ReadableStream<Uint8Array> | null;
}

/**
 * The file of `rendererDir` an app:// URL names, or null: another scheme or host, a
 * path that leaves the folder (`..`, encoded separators, backslashes, NUL), or a
 * symbolic link that points outside it.
 */
export async function resolveRendererFile(rendererDir: string, url: string): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST || parsed.username || parsed.password) return null;
  let rel: string;
  try {
    rel = decodeURIComponent(parsed.pathname);
  } catch {
    return null;
  }
  if (rel === '/' || rel === '') rel = '/index.html';
  // After decoding, the path must still be plain segments: no traversal, no other separators.
  if (/[\\\0]/.test(rel) || rel.split('/').some((segment) => segment === '..' || segment === '.')) return null;
  const root = await realpath(rendererDir).catch(() => null);
  if (!root) return null;
  const file = path.resolve(root, `.${rel}`);
  if (!file.startsWith(root + path.sep)) return null;
  // A link inside the folder must not lead out of it.
  const real = await realpath(file).catch(() => null);
  if (!real || !real.startsWith(root + path.sep)) return null;
  const st = await stat(real).catch(() => null);
  return st?.isFile() ? real : null;
}

/**
 * Answers one app:// request from the built renderer folder (GET/HEAD only), with the CSP on
 * every answer. The page's own <meta> policy is rewritten to the same one, because a browser
 * applies both and the built file's meta names only the default basemap host.
 */
export async function serveRendererFile(rendererDir: string, url: string, method = 'GET', csp = CONTENT_SECURITY_POLICY): Promise<AppFileAnswer> {
  const base = { 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff' };
  if (method !== 'GET' && method !== 'HEAD') return { status: 405, headers: base, body: null };
  const file = await resolveRendererFile(rendererDir, url);
  if (!file) return { status: 404, headers: { ...base, 'Content-Type': 'text/plain; charset=utf-8' }, body: null };
  const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  const html = type.startsWith('text/html') ? Buffer.from(withMetaContentSecurityPolicy(await readFile(file, 'utf8'), csp)) : null;
  const size = html ? html.length : (await stat(file)).size;
  const headers = { ...base, 'Content-Type': type, 'Content-Length': String(size), 'Cache-Control': 'no-cache' };
  if (method === 'HEAD') return { status: 200, headers, body: null };
  const body = html ? new Blob([html]).stream() : Readable.toWeb(createReadStream(file)) as unknown as ReadableStream<Uint8Array>;
  return { status: 200, headers, body };
}
