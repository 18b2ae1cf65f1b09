/**
 * DNS-rebinding defence for the loopback servers (the simulator and the
 * browser host): a page on evil.example whose name is re-pointed at 127.0.0.1
 * reaches the port, but its requests still say `Host: evil.example:port`. Only
 * the loopback names of the port itself are accepted.
 */

/** The Host header values a loopback server on `port` answers: 127.0.0.1, localhost and [::1] with that port. */
export function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** True when the request's Host header names this loopback server (case-insensitive). */
export function isLoopbackHost(hostHeader: string | undefined, port: number): boolean {
  return hostHeader !== undefined && loopbackHosts(port).has(hostHeader.toLowerCase());
}

/** True when an Origin header is absent (a non-browser client) or is one of this server's own loopback origins. */
export function isOwnOriginOrNone(originHeader: string | undefined, port: number): boolean {
  if (originHeader === undefined) return true;
  let url: URL;
  try {
    url = new URL(originHeader);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && isLoopbackHost(url.host, port);
}
