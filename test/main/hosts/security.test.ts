import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  metaContentSecurityPolicy,
  isAllowedExternalUrl,
  withContentSecurityPolicy,
} from '../../../main/hosts/security';

describe('Content-Security-Policy', () => {
  it('has exactly the required directives', () => {
    const directives = Object.fromEntries(
      CONTENT_SECURITY_POLICY.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(directives).toEqual({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self' 'unsafe-inline'",
      // The optional OpenStreetMap basemap (off by default) is the only remote image host.
      'img-src': "'self' data: blob: swath-raster: https://tile.openstreetmap.org",
      'connect-src': "'self' swath-raster:",
      'worker-src': "'self' blob:",
      'object-src': "'none'",
      'base-uri': "'none'",
      'frame-ancestors': "'none'",
    });
  });

  it('is mirrored by the meta tag in renderer/index.html (minus frame-ancestors)', () => {
    const html = readFileSync(new URL('../../../renderer/index.html', import.meta.url), 'utf8');
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html);
    const forMeta = metaContentSecurityPolicy(CONTENT_SECURITY_POLICY);
    expect(meta?.[1]).toBe(forMeta);
    expect(forMeta).not.toContain('frame-ancestors');
    expect(CONTENT_SECURITY_POLICY.startsWith(forMeta)).toBe(true);
  });

  it('replaces any CSP header whatever its case and keeps other headers', () => {
    const headers = withContentSecurityPolicy({ 'Content-Security-Policy': ['x'], 'CONTENT-SECURITY-POLICY': ['y'], etag: ['1'] });
    expect(headers).toEqual({ etag: ['1'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
    expect(withContentSecurityPolicy(undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
  });
});

describe('isAllowedExternalUrl', () => {
  const hosts = ['example.org'];
  it.each([
    ['https://example.org/docs', true],
    ['http://example.org/', true],
    ['https://docs.example.org/a?b#c', true],
    ['https://EXAMPLE.org/', true],
    ['https://example.org.evil.com/', false],
    ['https://notexample.org/', false],
    ['https://user:pw@example.org/', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['swath-raster://1', false],
    ['not a url', false],
  ])('%s -> %s', (url, expected) => {
    expect(isAllowedExternalUrl(url, hosts)).toBe(expected);
  });

  it('allows nothing with an empty allow-list', () => {
    expect(isAllowedExternalUrl('https://example.org/', [])).toBe(false);
  });
});
