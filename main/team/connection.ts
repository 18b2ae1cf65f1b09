/**
 * How main connects to the team catalog: a `postgres://` URL from the admin policy plus the analyst's role and password
 * from the OS keychain, supplied apart so that the password is never part of a URL, a log line or an error. TLS when the
 * URL asks for it (`sslmode=require`, `verify-ca` or `verify-full`) or an option says so, always with the server's
 * certificate checked (`require` is treated as `verify-full`: stricter than libpq, on purpose). A server that is not on
 * this machine is reached only over TLS; `verify-ca` (the chain checked, not the host name) only with the
 * organisation's own CA, since any publicly trusted certificate of any host would pass it; over TLS, SCRAM is bound
 * to the channel (SCRAM-SHA-256-PLUS) wherever the server offers it, so a relay cannot replay the exchange.
 */
import type { PoolConfig } from 'pg';
import { AppError } from '../../common/errors.js';
import { isLoopbackHost } from '../profiles/validation.js';

export interface CatalogCredentials {
  /** The catalog role; when absent, the URL's user. */
  role?: string | null;
  /** The role's password; when absent, the URL's (the migrate command accepts one there). */
  password?: string | null;
}

export interface CatalogConnectOptions {
  /** TLS even when the URL does not ask for it. */
  tls?: boolean;
  /** The organisation's CA certificate (PEM): the server's certificate must chain to it (instead of the system's CAs). */
  caPem?: string | null;
  /** Per statement, on the server (`statement_timeout`); the default 10 s. */
  statementTimeoutMs?: number;
  /** To open a connection; the default 5 s. */
  connectTimeoutMs?: number;
  /** The pool's size; the default 3. */
  maxConnections?: number;
}

const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

/** The pool's configuration, and where it connects (for messages; never the password). */
export function connectionConfig(url: string, credentials: CatalogCredentials, options: CatalogConnectOptions = {}): { config: PoolConfig; where: string; password: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new AppError('validation', 'The team catalog URL is not a URL (expected postgres://host:port/database).');
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new AppError('validation', `The team catalog URL must start with postgres:// or postgresql:// (not ${u.protocol}//).`);
  }
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new AppError('validation', 'The team catalog URL names no host.');
  const port = u.port ? Number(u.port) : 5432;
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) throw new AppError('validation', 'The team catalog URL names no database (postgres://host:port/database).');
  const user = credentials.role || decodeURIComponent(u.username);
  if (!user) throw new AppError('validation', 'No catalog role: none was supplied and the URL names none.');
  const password = credentials.password ?? (u.password ? decodeURIComponent(u.password) : '');

  const sslmode = u.searchParams.get('sslmode') ?? (options.tls ? 'verify-full' : 'disable');
  if (!(SSL_MODES as readonly string[]).includes(sslmode)) {
    throw new AppError('validation', `The team catalog URL's sslmode "${sslmode.slice(0, 40)}" is not one of ${SSL_MODES.join(', ')}.`);
  }
  if (sslmode === 'allow' || sslmode === 'prefer') {
    throw new AppError('validation', `sslmode=${sslmode} may fall back to an unencrypted connection, which Swath does not do: use sslmode=verify-full (TLS, certificate checked) or sslmode=disable.`);
  }
  const tls = options.tls || sslmode !== 'disable';
  if (options.tls && sslmode === 'disable') {
    throw new AppError('validation', 'The policy asks for TLS but the team catalog URL says sslmode=disable.');
  }
  if (!tls && !isLoopbackHost(host)) {
    throw new AppError('validation', `The team catalog at ${host.slice(0, 200)} is not on this machine: reach it over TLS with the certificate checked (sslmode=verify-full), never in plain text.`);
  }
  if (sslmode === 'verify-ca' && !options.caPem) {
    throw new AppError('validation', 'sslmode=verify-ca checks the certificate\'s chain but not the host name, so any publicly trusted certificate of any host would pass: Swath allows it only with the organisation\'s own CA (the policy\'s teamCatalogCa, or --ca). Use sslmode=verify-full.');
  }
  const ssl: PoolConfig['ssl'] = tls
    ? {
      rejectUnauthorized: true,
      ...(options.caPem ? { ca: options.caPem } : {}),
      // verify-ca: the chain is checked, the host name is not (libpq's meaning).
      ...(sslmode === 'verify-ca' ? { checkServerIdentity: () => undefined } : { servername: isIp(host) ? undefined : host }),
    }
    : false;
  const statementTimeout = options.statementTimeoutMs ?? 10_000;
  return {
    config: {
      host,
      port,
      database,
      user,
      password,
      ssl,
      // SCRAM-SHA-256-PLUS (tls-server-end-point) when the server offers it over TLS.
      enableChannelBinding: tls,
      application_name: 'swath',
      max: options.maxConnections ?? 3,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      idleTimeoutMillis: 10_000,
      statement_timeout: statementTimeout,
      // The client's own limit, a little later: a server that stops answering mid-query.
      query_timeout: statementTimeout + 5_000,
      allowExitOnIdle: true,
    },
    where: `${user}@${host.includes(':') ? `[${host}]` : host}:${port}/${database}${tls ? ' (TLS)' : ''}`,
    password,
  };
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
