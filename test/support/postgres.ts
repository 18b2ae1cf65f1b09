import { execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { analystStep, databaseSteps, runAs } from '../../scripts/team-setup.js';

/**
 * A throwaway PostgreSQL 15 + PostGIS 3 cluster for the team library's tests: `initdb` and `pg_ctl` from
 * /usr/lib/postgresql/15/bin (Debian's postgresql-15 and postgresql-15-postgis-3, which .ci/run installs) in a fresh
 * temporary folder, listening on a free loopback port only. PostgreSQL refuses to run as root, so when the tests run
 * as root (CI does) the cluster runs as the `postgres` user, in a folder that user owns.
 *
 * Set up (unless `setup: false`) with the IT guide's steps (scripts/team-setup.ts): the admin role, the analysts' group,
 * the catalog database with PostGIS and one analyst role. The migrations are not applied: that is the catalog's job.
 * `stop()` and `start()` stop and restart the same cluster on the same port (a test that loses the server mid-run);
 * `close()` stops it and deletes its folder.
 */

export const PG_BIN = process.env.SWATH_PG_BIN ?? '/usr/lib/postgresql/15/bin';

const execFileAsync = promisify(execFile);

export interface TestCluster {
  host: string;
  port: number;
  /** The superuser (`postgres`) and its password. */
  superuser: { role: string; password: string };
  /** The catalog database's name (set up unless `setup: false`). */
  database: string;
  admin: { role: string; password: string };
  analyst: { role: string; password: string };
  /** `postgres://<role>@host:port/<database>` without the password (it is supplied apart, as the app does). */
  url(role: string, query?: string): string;
  /** TLS clusters: the CA certificate (PEM) that signed the server's certificate. */
  caPem: string | null;
  /** Runs SQL as the superuser on the catalog database (or `database`). */
  sql(statements: string[], database?: string): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Whether the PostgreSQL binaries are here (tests skip with a message when not, and fail under CI). */
export function postgresAvailable(): boolean {
  return existsSync(path.join(PG_BIN, 'initdb')) && existsSync(path.join(PG_BIN, 'pg_ctl'));
}

/** A loopback TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function uidOf(user: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([execFileAsync('id', ['-u', user]), execFileAsync('id', ['-g', user])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** A self-signed CA and a server certificate it signed for 127.0.0.1 and localhost (openssl). */
async function makeCertificates(dir: string): Promise<void> {
  const run = (args: string[]) => execFileAsync('openssl', args, { cwd: dir });
  await run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=Swath test CA', '-keyout', 'ca.key', '-out', 'ca.crt']);
  await run(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr']);
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await run(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'san.ext', '-out', 'server.crt']);
}

export async function startPostgres(options: { setup?: boolean; tls?: boolean } = {}): Promise<TestCluster> {
  if (!postgresAvailable()) throw new Error(`PostgreSQL 15 is not installed at ${PG_BIN} (apt-get install postgresql-15 postgresql-15-postgis-3)`);
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? await uidOf('postgres') : null;
  // As root, under /tmp: the postgres user must reach the folder (a TMPDIR under /root would not do).
  const root = mkdtempSync(path.join(asRoot ? '/tmp' : tmpdir(), 'swath-pg-'));
  const data = path.join(root, 'data');
  const own = (p: string) => { if (owner) chownSync(p, owner.uid, owner.gid); };
  own(root);
  const superuser = { role: 'postgres', password: `su-${randomBytes(12).toString('hex')}` };
  const pwfile = path.join(root, 'pwfile');
  writeFileSync(pwfile, superuser.password, { mode: 0o600 });
  own(pwfile);

  const exec = (bin: string, args: string[]) => new Promise<void>((resolve, reject) => {
    const child = spawn(path.join(PG_BIN, bin), args, {
      cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    child.once('error', reject);
    child.once('close', (code) => code === 0 ? resolve() : reject(new Error(`${bin} ${args.join(' ')} exited with ${code}:\n${out}`)));
  });

  await exec('initdb', ['-D', data, '-U', superuser.role, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '--encoding=UTF8', '--no-sync']);
  let caPem: string | null = null;
  if (options.tls) {
    await makeCertificates(root);
    for (const f of ['server.crt', 'server.key']) {
      const to = path.join(data, f);
      writeFileSync(to, readFileSync(path.join(root, f)), { mode: 0o600 });
      chmodSync(to, 0o600);
      own(to);
    }
    caPem = readFileSync(path.join(root, 'ca.crt'), 'utf8');
  }
  const port = await freePort();
  const conf = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${data}'`,
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'max_connections = 50',
    "log_min_messages = 'warning'",
    ...(options.tls ? ['ssl = on', "ssl_cert_file = 'server.crt'", "ssl_key_file = 'server.key'"] : []),
  ];
  const confFile = path.join(data, 'postgresql.conf');
  writeFileSync(confFile, `${readFileSync(confFile, 'utf8')}\n# swath test cluster\n${conf.join('\n')}\n`);
  const log = path.join(root, 'server.log');
  const start = () => exec('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', 'start']);
  const stop = () => exec('pg_ctl', ['-D', data, '-w', '-t', '60', '-m', 'fast', 'stop']);
  await start();
  let running = true;
  // A test process that ends without close() (a crash, a killed worker) stops its server and removes the folder.
  const onExit = () => {
    if (running) spawnSync(path.join(PG_BIN, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop'], { stdio: 'ignore', ...(owner ? { uid: owner.uid, gid: owner.gid } : {}) });
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const host = '127.0.0.1';
  const server = { host, port, user: superuser.role, password: superuser.password };
  const database = 'swath_team';
  const admin = { role: 'swath_admin', password: `admin-${randomBytes(12).toString('hex')}` };
  const analyst = { role: 'alice', password: `alice-${randomBytes(12).toString('hex')}` };
  const cluster: TestCluster = {
    host, port, superuser, database, admin, analyst, caPem,
    url: (role, query) => `postgres://${encodeURIComponent(role)}@${host}:${port}/${database}${query ? `?${query}` : ''}`,
    sql: (statements, db = database) => runAs(server, db, statements),
    async stop() { if (running) { await stop(); running = false; } },
    async start() { if (!running) { await start(); running = true; } },
    async close() {
      try { if (running) await stop(); } finally {
        running = false;
        process.removeListener('exit', onExit);
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
  try {
    if (options.setup !== false) {
      const steps = databaseSteps({ database, adminRole: admin.role, adminPassword: admin.password });
      await runAs(server, 'postgres', steps.filter((s) => s.database === 'maintenance').map((s) => s.sql));
      await runAs(server, database, steps.filter((s) => s.database === 'catalog').map((s) => s.sql));
      await runAs(server, 'postgres', [analystStep(analyst)]);
    }
  } catch (e) {
    await cluster.close();
    throw e;
  }
  return cluster;
}
