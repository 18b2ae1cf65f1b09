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
 * Builds the Node implementation: undici's fetch through an EnvHttpProxyAgent, so
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
  return Object.assign(f, { close: () => dispatcher.close() });
}
