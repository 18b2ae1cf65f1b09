/**
 * Security policy shared by the hosts, kept free of Electron so it can be
 * tested and reused by the browser host.
 */

/** The renderer's Content-Security-Policy, sent as a response header for every document. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: swath-raster: https://tile.openstreetmap.org",
  "connect-src 'self' swath-raster:",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The same policy for the `<meta>` tag in renderer/index.html, for hosts that serve it without the
 * header (the app:// handler and the browser host send the header too); browsers ignore
 * frame-ancestors in meta and warn about it. On app://swath, 'self' is that one origin, where
 * under file:// it matched every local file.
 */
export const META_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.split('; ')
  .filter((directive) => !directive.startsWith('frame-ancestors'))
  .join('; ');

/** Returns response headers with our CSP replacing any the server sent (header names are case-insensitive). */
export function withContentSecurityPolicy(headers: Record<string, string[]> | undefined): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') result[name] = value;
  }
  result['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return result;
}

/** True when `url` is an http(s) link to an allow-listed host (or one of its subdomains) and may open in the system browser. */
export function isAllowedExternalUrl(url: string, allowedHosts: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false;
  // Credentials in a link are a classic way to disguise the real host.
  if (parsed.username || parsed.password) return false;
  const host = parsed.hostname.toLowerCase();
  return allowedHosts.some((allowed) => {
    const a = allowed.toLowerCase();
    return host === a || host.endsWith(`.${a}`);
  });
}
