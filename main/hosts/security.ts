/**
 * Security policy shared by the hosts, kept free of Electron so it can be
 * tested and reused by the browser host.
 */

/** Where the default online basemap (OpenStreetMap) loads its tiles from. */
export const OSM_TILE_ORIGIN = 'https://tile.openstreetmap.org';

/**
 * The renderer's CSP with the given basemap tile origins as the only remote images: OSM by default,
 * an internal XYZ server or none under an admin policy (main/policy basemapOrigins).
 */
export function buildContentSecurityPolicy(tileOrigins: readonly string[] = [OSM_TILE_ORIGIN]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    ['img-src', "'self'", 'data:', 'blob:', 'swath-raster:', ...tileOrigins].join(' '),
    "connect-src 'self' swath-raster:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The renderer's Content-Security-Policy, sent as a response header for every document. */
export const CONTENT_SECURITY_POLICY = buildContentSecurityPolicy();

/** Returns response headers with our CSP replacing any the server sent (header names are case-insensitive). */
export function withContentSecurityPolicy(headers: Record<string, string[]> | undefined, policy: string = CONTENT_SECURITY_POLICY): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') result[name] = value;
  }
  result['Content-Security-Policy'] = [policy];
  return result;
}

/**
 * The meta-tag form of a CSP, for the `<meta>` tag in renderer/index.html (hosts that serve it
 * without the header; the app:// handler and the browser host send the header too): without
 * frame-ancestors, which browsers ignore in meta and warn about.
 */
export function metaContentSecurityPolicy(policy: string): string {
  return policy.split('; ').filter((directive) => !directive.startsWith('frame-ancestors')).join('; ');
}

/** Replaces the CSP meta tag's content in the renderer's index.html (the meta and the header must agree: both apply). */
export function withMetaContentSecurityPolicy(html: string, policy: string): string {
  return html.replace(/(<meta\s+http-equiv="Content-Security-Policy"\s+content=")[^"]*(")/, `$1${metaContentSecurityPolicy(policy)}$2`);
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
