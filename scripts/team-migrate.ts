/**
 * `npm run team:migrate -- <url> [--ca <pem file>]`: applies the team catalog's migrations (main/team/migrations.ts)
 * with an admin role, the way the app does on its first connect with one. The URL names the admin role
 * (postgres://swath_admin@host:5432/swath_team, with ?sslmode=verify-full for TLS); the password comes from the
 * environment's PGPASSWORD or the URL. Prints what it did; exits 1 with the reason when it could not.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TeamCatalog } from '../main/team/catalog.js';

export async function migrateCommand(args: string[], env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<number> {
  const url = args.find((a) => !a.startsWith('--'));
  const caAt = args.indexOf('--ca');
  if (!url) {
    print('usage: npm run team:migrate -- postgres://<admin role>@<host>:<port>/<database>[?sslmode=verify-full] [--ca ca.pem]  (password: PGPASSWORD or the URL)');
    return 2;
  }
  const caPem = caAt >= 0 && args[caAt + 1] ? readFileSync(args[caAt + 1]!, 'utf8') : null;
  let catalog: TeamCatalog;
  try {
    // Refused before any connection: a server on another machine without TLS (the admin password would cross in plain text), verify-ca without --ca.
    catalog = new TeamCatalog(url, { password: env.PGPASSWORD ?? null }, { caPem, statementTimeoutMs: 120_000 });
  } catch (e) {
    print((e as Error).message);
    return 1;
  }
  try {
    const r = await catalog.migrate();
    if (r.applied.length === 0) print(`${catalog.where}: the schema is at version ${r.to}, nothing to do.`);
    else {
      print(`${catalog.where}: schema version ${r.from} -> ${r.to}; applied:`);
      for (const step of r.applied) print(`  ${step}`);
    }
    return 0;
  } catch (e) {
    print(`${catalog.where}: ${(e as Error).message}`);
    return 1;
  } finally {
    await catalog.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  migrateCommand(process.argv.slice(2), process.env, (l) => console.log(l)).then((code) => process.exit(code), (e: unknown) => {
    console.error((e as Error).message);
    process.exit(1);
  });
}
