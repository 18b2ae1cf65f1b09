import { describe, expect, it } from 'vitest';
import { auditVerdict } from '../../scripts/audit';

// `npm run audit` (scripts/audit.ts) reads `npm audit --omit=dev --json`; it is not run by npm test
// (it needs the registry), but how it reads each answer is checked here on recorded answers.

describe('npm run audit', () => {
  it('a registry that refuses the bulk advisory endpoint (as registry.npmjs.org answered here): skipped, with the reason, exit 0', () => {
    const stdout = JSON.stringify({
      message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
      method: 'POST', statusCode: 405, body: '', error: { summary: '', detail: '' },
    });
    const v = auditVerdict({ status: 1, stdout, stderr: 'npm warn audit 405 Method Not Allowed\nnpm error audit endpoint returned an error\n' });
    expect(v.exitCode).toBe(0);
    expect(v.lines[0]).toMatch(/^skipped: .*405 Method Not Allowed/);
  });

  it('no network at all: skipped, exit 0', () => {
    const v = auditVerdict({ status: 1, stdout: '', stderr: 'npm error code ENOTFOUND\nnpm error request to https://registry.npmjs.org failed\n' });
    expect(v).toMatchObject({ exitCode: 0, lines: [expect.stringMatching(/^skipped: /)] });
  });

  it('advisories: listed with their severity, exit 1', () => {
    const stdout = JSON.stringify({
      auditReportVersion: 2,
      vulnerabilities: { undici: { severity: 'high', via: [{ title: 'Request smuggling', url: 'https://github.com/advisories/GHSA-x' }], fixAvailable: true } },
      metadata: { vulnerabilities: { high: 1, total: 1 }, dependencies: { prod: 240 } },
    });
    const v = auditVerdict({ status: 1, stdout, stderr: '' });
    expect(v.exitCode).toBe(1);
    expect(v.lines.join('\n')).toMatch(/- undici \(high\): Request smuggling \[fix available/);
  });

  it('a clean report: exit 0; an unexplained failure: exit 2', () => {
    const clean = JSON.stringify({ auditReportVersion: 2, vulnerabilities: {}, metadata: { vulnerabilities: { total: 0 }, dependencies: { prod: 240 } } });
    expect(auditVerdict({ status: 0, stdout: clean, stderr: '' })).toEqual({ exitCode: 0, lines: ['npm audit: no known advisories for the production dependencies (240 packages).'] });
    expect(auditVerdict({ status: 1, stdout: '', stderr: 'npm error code ELOCKVERIFY\nnpm error lockfile is broken\n' }).exitCode).toBe(2);
  });
});
