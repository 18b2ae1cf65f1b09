import pg from 'pg';
import { ANALYST_GROUP_ROLE } from '../main/team/migrations.js';

/**
 * The steps IT takes once to set up the team library's catalog (docs/it-guide.md, "Team library: setting it up"), as SQL
 * a superuser runs. The IT guide quotes these statements; `scripts/team-setup-check.ts` runs them against a server and
 * checks the result, and the throwaway test clusters (test/support/postgres.ts) are set up with them too, so the
 * documented steps are the ones the tests use.
 *
 * Between the two steps, IT applies the migrations with the admin role (`npm run team:migrate -- <url>`): the tables
 * belong to that role, and each migration grants the analysts' group role what they may do.
 */

/** `name` as an SQL identifier: bare when it is a plain lower-case name (as the IT guide shows it), quoted otherwise. */
function ident(name: string): string {
  return /^[a-z_][a-z0-9_]{0,62}$/.test(name) && !['user', 'role', 'all', 'public', 'group', 'default'].includes(name) ? name : pg.escapeIdentifier(name);
}

/** The group role every analyst's role is a member of; the migrations grant it SELECT/INSERT and the claims. */
export const ANALYST_GROUP = ANALYST_GROUP_ROLE;

/** Step 1, as a superuser: the admin role (owns the catalog and runs the migrations), the analysts' group, the database and PostGIS. */
export function databaseSteps(o: { database: string; adminRole: string; adminPassword: string }): { database: 'maintenance' | 'catalog'; sql: string }[] {
  const id = ident;
  return [
    { database: 'maintenance', sql: `CREATE ROLE ${id(o.adminRole)} LOGIN PASSWORD ${pg.escapeLiteral(o.adminPassword)}` },
    { database: 'maintenance', sql: `CREATE ROLE ${id(ANALYST_GROUP)} NOLOGIN` },
    { database: 'maintenance', sql: `CREATE DATABASE ${id(o.database)} OWNER ${id(o.adminRole)}` },
    // PostGIS is not a trusted extension: a superuser creates it, in the database's public schema.
    { database: 'catalog', sql: 'CREATE EXTENSION IF NOT EXISTS postgis' },
  ];
}

/** Step 3, as a superuser (or a role with CREATEROLE), once per analyst: a login role in the analysts' group. */
export function analystStep(o: { role: string; password: string }): string {
  return `CREATE ROLE ${ident(o.role)} LOGIN PASSWORD ${pg.escapeLiteral(o.password)} IN ROLE ${ident(ANALYST_GROUP)}`;
}

/** Runs `sql` on `database` of the server at host:port as `user` (a superuser), then disconnects. */
export async function runAs(server: { host: string; port: number; user: string; password: string; ssl?: pg.ClientConfig['ssl'] }, database: string, sql: string[]): Promise<void> {
  const client = new pg.Client({ host: server.host, port: server.port, user: server.user, password: server.password, database, ssl: server.ssl, application_name: 'swath-setup' });
  await client.connect();
  try {
    for (const s of sql) await client.query(s);
  } finally {
    await client.end();
  }
}
