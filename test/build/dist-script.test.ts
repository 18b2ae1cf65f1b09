import { describe, expect, it } from 'vitest';
import { signingReport } from '../../scripts/dist';

describe('signing inputs from the environment', () => {
  it('Windows: unsigned without a certificate, and says so', () => {
    expect(signingReport('win32', {})).toMatchObject({ signed: false, lines: [expect.stringMatching(/UNSIGNED/)] });
    expect(signingReport('win32', { WIN_CSC_LINK: 'C:\\cert.pfx', WIN_CSC_KEY_PASSWORD: 'x' })).toMatchObject({ signed: true, lines: [expect.stringMatching(/WIN_CSC_LINK \(password set\)/)] });
  });

  it('macOS: signing and notarization each need their variables', () => {
    expect(signingReport('darwin', {})).toMatchObject({ signed: false, notarized: false });
    expect(signingReport('darwin', { CSC_LINK: 'cert.p12', APPLE_ID: 'a@b.c', APPLE_APP_SPECIFIC_PASSWORD: 'p' })).toMatchObject({ signed: true, notarized: false });
    expect(signingReport('darwin', { CSC_LINK: 'cert.p12', APPLE_ID: 'a@b.c', APPLE_APP_SPECIFIC_PASSWORD: 'p', APPLE_TEAM_ID: 'T' })).toMatchObject({ signed: true, notarized: true });
    expect(signingReport('darwin', { CSC_NAME: 'Developer ID', APPLE_API_KEY: 'k.p8', APPLE_API_KEY_ID: 'id', APPLE_API_ISSUER: 'iss' })).toMatchObject({ notarized: true });
  });

  it('Linux: never signed, and says so', () => {
    expect(signingReport('linux', { CSC_LINK: 'x' }).lines[0]).toMatch(/not code-signed/);
  });
});
