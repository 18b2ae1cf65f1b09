import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';

/**
 * The HTTP implementation the client uses: the WHATWG fetch signature, so that
 * Electron's `net.fetch` (system proxy, OS certificate store) and undici (Node,
 * tests, browser host) are interchangeable.
 */
export type HttpFetch = (input: string, init: RequestInit) => Promise<Response>;

/** Proxy settings for the Node implementation; each one overrides its environment variable. */
export interface NodeFetchOptions {
  /** Proxy for http:// targets; overrides HTTP_PROXY / http_proxy. An empty string means none. */
  httpProxy?: string;
  /** Proxy for https:// targets; overrides HTTPS_PROXY / https_proxy. An empty string means none. */
  httpsProxy?: string;
  /** Hosts that bypass the proxy ("host", "host:port", ".suffix", "*"); overrides NO_PROXY / no_proxy. */
  noProxy?: string;
  /** TCP/TLS connect timeout, ms. */
  connectTimeoutMs?: number;
}

/** A Node {@link HttpFetch} that owns a connection pool, which {@link NodeHttpFetch.close} releases. */
export type NodeHttpFetch = HttpFetch & { close(): Promise<void> };

/**
 * Builds the Node implementation (which never follows redirects: {@link refuseRedirects}): undici's fetch through an EnvHttpProxyAgent, so
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured (corporate networks), with the
 * option of explicit settings that do not touch process.env.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeHttpFetch {
  const agentOptions: EnvHttpProxyAgent.Options = {};
  if (options.httpProxy !== undefined) agentOptions.httpProxy = options.httpProxy;
  if (options.httpsProxy !== undefined) agentOptions.httpsProxy = options.httpsProxy;
  if (options.noProxy !== undefined) agentOptions.noProxy = options.noProxy;
  if (options.connectTimeoutMs !== undefined) agentOptions.connect = { timeout: options.connectTimeoutMs };
  const dispatcher = new EnvHttpProxyAgent(agentOptions);
  // undici's own fetch (not Node's bundled copy) is required: only it accepts this dispatcher.
  const f = ((input: string, init: RequestInit) =>
    undiciFetch(input, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as HttpFetch;
  return refuseRedirects(Object.assign(f, { close: () => dispatcher.close() }));
}

/** A redirect that a request carrying the API key refused to follow; `location` is the target the service named. */
export class RedirectRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly location: string | null,
  ) {
    super(`The service redirected the request (HTTP ${status}${location ? ` to ${location}` : ''}); the API key is never sent across redirects.`);
    this.name = 'RedirectRefusedError';
  }
}

const REFUSES_REDIRECTS = Symbol('swath.refusesRedirects');

/**
 * The one rule for every request that carries the API key, in both hosts (undici
 * and Electron's net.fetch): redirects are never followed, whatever the caller
 * passed, so a 30x (to another host, or down to http) cannot take the
 * x-api-key header along. A redirect answer (3xx, or Chromium's opaque
 * "opaqueredirect" with status 0) becomes a {@link RedirectRefusedError} and
 * its body is discarded. Wrapping twice is harmless.
 */
export function refuseRedirects<F extends HttpFetch>(fetch: F): F {
  if ((fetch as { [REFUSES_REDIRECTS]?: boolean })[REFUSES_REDIRECTS]) return fetch;
  const guarded: HttpFetch = async (input, init) => {
    const res = await fetch(input, { ...init, redirect: 'manual' });
    if ((res.status >= 300 && res.status < 400) || res.type === 'opaqueredirect') {
      await res.body?.cancel().catch(() => undefined);
      throw new RedirectRefusedError(res.status, res.headers.get('location'));
    }
    return res;
  };
  // Keeps close() and any other property of a host fetch (e.g. the Node pool's).
  return Object.assign(Object.assign(guarded, fetch), { [REFUSES_REDIRECTS]: true }) as unknown as F;
}
