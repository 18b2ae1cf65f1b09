import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, buildContentSecurityPolicy, withMetaContentSecurityPolicy } from '../../../main/hosts/security';
import { basemapOrigins, type PolicyState } from '../../../main/policy';

const state = (policy: PolicyState['policy']): PolicyState => ({ status: 'applied', file: 'p.json', problems: [], policy });
const imgSrc = (csp: string) => csp.split('; ').find((d) => d.startsWith('img-src'))!;

describe('CSP under the basemap policy', () => {
  it('allows OSM by default, exactly as before', () => {
    expect(buildContentSecurityPolicy(basemapOrigins(state({})))).toBe(CONTENT_SECURITY_POLICY);
    expect(imgSrc(CONTENT_SECURITY_POLICY)).toBe("img-src 'self' data: blob: swath-raster: https://tile.openstreetmap.org");
  });

  it('allows only the internal tile server with "xyz", and no remote host with "none"', () => {
    const xyz = buildContentSecurityPolicy(basemapOrigins(state({ basemap: { online: 'xyz', xyzUrl: 'https://tiles.corp.example:8443/{z}/{x}/{y}.png' } })));
    expect(imgSrc(xyz)).toBe("img-src 'self' data: blob: swath-raster: https://tiles.corp.example:8443");
    expect(xyz).not.toContain('openstreetmap');
    const none = buildContentSecurityPolicy(basemapOrigins(state({ basemap: { online: 'none' } })));
    expect(imgSrc(none)).toBe("img-src 'self' data: blob: swath-raster:");
    expect(none).not.toMatch(/https:/);
  });

  it('rewrites the meta tag of index.html to the same policy (minus frame-ancestors)', () => {
    const html = '<head><meta\n      http-equiv="Content-Security-Policy"\n      content="default-src \'self\'; img-src https://tile.openstreetmap.org"\n    /></head>';
    const csp = buildContentSecurityPolicy([]);
    const out = withMetaContentSecurityPolicy(html, csp);
    expect(out).not.toContain('openstreetmap');
    expect(out).toContain("img-src 'self' data: blob: swath-raster:;");
    expect(out).not.toContain('frame-ancestors');
  });
});
