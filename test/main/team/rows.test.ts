/** The team catalog's row rules that need no server: the shared store's paths and what a registration may carry. */
import { describe, expect, it } from 'vitest';
import { policyProblems, policySchema } from '../../../main/policy/schema.js';
import { connectionConfig } from '../../../main/team/connection.js';
import { migrateCommand } from '../../../scripts/team-migrate.js';
import { MAX_JSON_BYTES, parseInput, parseRow } from '../../../main/team/rows.js';
import type { TeamRasterInput } from '../../../main/team/types.js';

const good: TeamRasterInput = {
  sha256: 'a'.repeat(64), size: 1, kind: 'composite', date: '2026-10-03', model: 'm', constellations: [], bands: ['B04'], epsg: 32633,
  resolution: 10, dataType: 'UInt16', footprint: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] }, tileGuid: null,
  storagePath: '2026/10/03/a.tif', acquiredBy: 'A. Analyst', acquiredAt: '2026-10-03T09:00:00.000Z', costEur: 1, request: null, stac: null,
};

describe('paths inside the shared store, as a registration and a row read them', () => {
  const row = (storagePath: string) => parseRow({ ...good, storagePath, id: '7', registeredAt: '2026-10-03T09:00:01.000Z', too_big: null, footprint: JSON.stringify(good.footprint) });

  it('takes relative paths with forward slashes', () => {
    for (const p of ['a.tif', '2026/10/03/composite..v2.tif']) {
      expect(parseInput({ ...good, storagePath: p }).storagePath).toBe(p);
      expect('raster' in row(p)).toBe(true);
    }
  });

  // The store's own rule (storage-path.ts), so a row the store would refuse to open is refused when read.
  it.each([
    ['', 'it is empty'],
    ['../x.tif', 'it climbs out with ".."'],
    ['/etc/passwd', 'it is absolute'],
    ['C:/Windows/x.tif', 'it starts with a drive letter'],
    ['a\\b.tif', 'it contains a backslash (storage paths use forward slashes)'],
    ['a\nb.tif', 'it contains a NUL or control character'],
    ['a//b.tif', 'it has an empty or "." segment'],
    ['x'.repeat(1025), 'it is longer than 1024 characters'],
    ['a/b?.tif', 'its segment "b?.tif" has a character Windows refuses in names (: * ? " < > |)'],
    ['a/NUL.tif', 'its segment "NUL.tif" is a device name on Windows'],
    ['a./b.tif', 'its segment "a." ends with a dot or a space'],
  ])('refuses %j: %s', (p, reason) => {
    expect(() => parseInput({ ...good, storagePath: p })).toThrow(`storagePath: ${reason}`);
    expect(row(p)).toEqual({ refused: expect.objectContaining({ id: '7', reason: expect.stringContaining(`storagePath: ${reason}`) }) });
  });
});

describe('what a registration may carry', () => {
  it('takes a well-formed raster as it is', () => {
    expect(parseInput(good)).toEqual(good);
  });

  it('refuses, naming the field: a big JSON document, a deep one, too many vertices, a bad date', () => {
    expect(() => parseInput({ ...good, stac: { pad: 'x'.repeat(MAX_JSON_BYTES) } })).toThrow(`The raster cannot be registered: stac: is ${MAX_JSON_BYTES + 10} bytes (limit ${MAX_JSON_BYTES}).`);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) deep = { d: deep };
    expect(() => parseInput({ ...good, request: deep })).toThrow('request: is nested deeper than 64 levels');
    const ring = Array.from({ length: 10_001 }, (_, i) => [i / 1e4, 0]);
    expect(() => parseInput({ ...good, footprint: { type: 'Polygon', coordinates: [ring] } })).toThrow('footprint: has 10001 vertices (limit 10000)');
    expect(() => parseInput({ ...good, date: '2026-02-30' })).toThrow('date: is not a calendar date');
    expect(() => parseInput({ ...good, storagePath: 'a\0b' })).toThrow('storagePath: it contains a NUL or control character');
  });
});

describe('the connection', () => {
  it('keeps the password out of where it connects, and checks the certificate whenever TLS is asked for', () => {
    const c = connectionConfig('postgres://ignored:url-secret@db.example.org:6543/team?sslmode=require', { role: 'alice', password: 'keychain-secret' });
    expect(c.where).toBe('alice@db.example.org:6543/team (TLS)');
    expect(c.config).toMatchObject({ host: 'db.example.org', port: 6543, database: 'team', user: 'alice', password: 'keychain-secret', application_name: 'swath', ssl: { rejectUnauthorized: true, servername: 'db.example.org' } });
    expect(connectionConfig('postgres://u:url-secret@127.0.0.1/db', {}).password).toBe('url-secret');
    expect(connectionConfig('postgres://u@h/db', {}, { tls: true }).config.ssl).toMatchObject({ rejectUnauthorized: true });
    expect(connectionConfig('postgres://u@localhost/db', {}).config.ssl).toBe(false);
    expect(() => connectionConfig('https://h/db', {})).toThrow('must start with postgres:// or postgresql://');
    expect(() => connectionConfig('postgres://u@h/db?sslmode=disable', {}, { tls: true })).toThrow('The policy asks for TLS but the team catalog URL says sslmode=disable.');
    expect(() => connectionConfig('postgres://h/db', {})).toThrow('No catalog role');
  });

  it('reaches another machine only over TLS, takes verify-ca only with the organisation\'s CA, and binds SCRAM to the channel', () => {
    for (const url of ['postgres://u@db.example.org/db', 'postgres://u@db.example.org/db?sslmode=disable', 'postgres://u@10.0.0.5/db']) {
      expect(() => connectionConfig(url, {})).toThrow(/is not on this machine: reach it over TLS with the certificate checked \(sslmode=verify-full\), never in plain text/);
    }
    expect(connectionConfig('postgres://u@[::1]/db', {}).config.ssl).toBe(false);
    expect(() => connectionConfig('postgres://u@db.example.org/db?sslmode=verify-ca', {}))
      .toThrow(/sslmode=verify-ca checks the certificate's chain but not the host name.*only with the organisation's own CA/);
    const ca = connectionConfig('postgres://u@db.example.org/db?sslmode=verify-ca', {}, { caPem: 'PEM' }).config;
    expect(ca.ssl).toMatchObject({ rejectUnauthorized: true, ca: 'PEM' });
    expect(ca.enableChannelBinding).toBe(true);
    expect(connectionConfig('postgres://u@db.example.org/db?sslmode=verify-full', {}).config.enableChannelBinding).toBe(true);
    expect(connectionConfig('postgres://u@127.0.0.1/db', {}).config.enableChannelBinding).toBe(false);
  });

  it('team:migrate refuses a server on another machine without TLS before it connects', async () => {
    const lines: string[] = [];
    const code = await migrateCommand(['postgres://swath_admin@db.example.org:5432/swath_team'], { PGPASSWORD: 'admin-password' }, (l) => lines.push(l));
    expect(code).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^The team catalog at db\.example\.org is not on this machine: reach it over TLS/)]);
    expect(lines.join('\n')).not.toContain('admin-password');
  });

  it('a policy naming verify-ca without its own CA is refused, naming both keys', () => {
    const url = 'postgres://db.corp.example:5432/swath?sslmode=verify-ca';
    const refused = policySchema.safeParse({ teamCatalogUrl: url });
    expect(refused.success).toBe(false);
    expect(policyProblems(refused.error!)).toEqual([expect.stringMatching(/^teamCatalogUrl: teamCatalogUrl with sslmode=verify-ca needs teamCatalogCa/)]);
    expect(policySchema.safeParse({ teamCatalogUrl: url, teamCatalogCa: '/etc/swath/ca.pem' }).success).toBe(true);
    expect(policySchema.safeParse({ teamCatalogUrl: url.replace('verify-ca', 'verify-full') }).success).toBe(true);
  });
});

describe('a teammate\'s row as the app shows it', () => {
  it('carries no control characters in its names, whatever the teammate wrote', () => {
    const hostile = 'mallory\u001b[2J\r\nteam: alice bought everything\u0085\u2028';
    const read = parseRow({
      ...good, id: '7', registeredAt: '2026-10-03T09:00:01.000Z', too_big: null, footprint: JSON.stringify(good.footprint),
      acquiredBy: hostile, model: `m${hostile}`, dataType: 'UInt16\u0007', bands: ['B04', `B08${hostile}`], constellations: ['Sentinel2', hostile],
    });
    expect('raster' in read).toBe(true);
    if (!('raster' in read)) return;
    const r = read.raster;
    for (const text of [r.acquiredBy, r.model!, r.dataType!, ...r.bands, ...r.constellations]) {
      // eslint-disable-next-line no-control-regex
      expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    }
    const escaped = 'mallory\\u001b[2J\\r\\nteam: alice bought everything\\u0085\\u2028';
    expect(r.acquiredBy).toBe(escaped);
    // Plain text stays as it is.
    expect(r.bands).toEqual(['B04', `B08${escaped}`]);
    expect(r.constellations).toEqual(['Sentinel2', escaped]);
    expect(r.dataType).toBe('UInt16\\u0007');
  });
});
