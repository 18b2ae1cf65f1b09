/**
 * The IT guide's steps for setting up the team library (docs/it-guide.md), run by `npm run team:setup-check` against a
 * throwaway cluster that has nothing but a superuser (as IT's fresh server), and `npm run team:migrate` run again on the
 * result. The guide quotes the very statements the script runs.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analystStep, databaseSteps } from '../../scripts/team-setup.js';
import { postgresAvailable, startPostgres, type TestCluster } from '../support/postgres.js';

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const describeReal = describe.skipIf(!postgresAvailable() && !process.env.CI);

/** Runs a script under tsx as `npm run` does; resolves with its exit code and output. */
async function script(file: string, args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  return execFileAsync(process.execPath, ['--import', 'tsx', path.join(ROOT, file), ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 })
    .then((r) => ({ code: 0, out: r.stdout + r.stderr }), (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }));
}

describe('the IT guide on setting up the team library', () => {
  it('quotes the statements the setup check runs', () => {
    const guide = readFileSync(path.join(ROOT, 'docs/it-guide.md'), 'utf8');
    const start = guide.indexOf('## Team library: setting it up');
    expect(start).toBeGreaterThan(-1);
    const section = guide.slice(start, guide.indexOf('\n## ', start + 1));
    expect(section.length).toBeGreaterThan(100);
    const statements = [
      ...databaseSteps({ database: 'swath_team', adminRole: 'swath_admin', adminPassword: 'admin-password' }).map((s) => s.sql),
      analystStep({ role: 'alice', password: 'alice-password' }),
    ];
    for (const sql of statements) expect(section).toContain(`${sql};`);
    expect(section).toContain('npm run team:migrate -- "postgres://swath_admin@');
    expect(section).toContain('npm run team:setup-check --');
  });
});

describeReal('npm run team:setup-check on a fresh server', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startPostgres({ setup: false });
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('takes every documented step, checks the result, and a second migrate has nothing to do', async () => {
    const superuserUrl = `postgres://${cluster.superuser.role}@${cluster.host}:${cluster.port}/postgres`;
    const run = await script('scripts/team-setup-check.ts', [superuserUrl, '--database', 'swath_team'], {
      PGPASSWORD: cluster.superuser.password, SWATH_ADMIN_PASSWORD: 'admin-pw-1', SWATH_ANALYST_PASSWORD: 'analyst-pw-1',
    });
    expect(run.out).toMatch(/^ok {3}1\. admin role/m);
    expect(run.out).toMatch(/schema version 0 -> 2; applied:\n\s+1: rasters.*\n\s+2: analysts add rows and claims only in their own name/);
    expect(run.out).toMatch(/^ok {3}4\. the analyst swath_check uses the catalog: registers, finds, claims$/m);
    expect(run.out).toMatch(/^ok {3}5\. the analyst swath_check may not change the schema, delete rasters or add one in another's name; QGIS sees the layer$/m);
    expect(run.out).toContain('is set up as the IT guide says');
    expect(run.code).toBe(0);
    expect(run.out).not.toContain(cluster.superuser.password);

    const again = await script('scripts/team-migrate.ts', [`postgres://swath_admin@${cluster.host}:${cluster.port}/swath_team`], { PGPASSWORD: 'admin-pw-1' });
    expect(again.out.trim()).toBe(`swath_admin@${cluster.host}:${cluster.port}/swath_team: the schema is at version 2, nothing to do.`);
    expect(again.code).toBe(0);

    const wrong = await script('scripts/team-migrate.ts', [`postgres://swath_admin@${cluster.host}:${cluster.port}/swath_team`], { PGPASSWORD: 'not-the-password' });
    expect(wrong.code).toBe(1);
    expect(wrong.out).toMatch(/refused the login: .*password authentication failed for user "swath_admin"/);
    expect(wrong.out).not.toContain('not-the-password');
  });
});
