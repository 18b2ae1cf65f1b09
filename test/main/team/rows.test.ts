/** The team catalog's row rules that need no server: the shared store's paths and what a registration may carry. */
import { describe, expect, it } from 'vitest';
import { connectionConfig } from '../../../main/team/connection.js';
import { MAX_JSON_BYTES, parseInput, parseRow, storagePathProblem } from '../../../main/team/rows.js';
import type { TeamRasterInput } from '../../../main/team/types.js';

const good: TeamRasterInput = {
  sha256: 'a'.repeat(64), size: 1, kind: 'composite', date: '2026-10-03', model: 'm', constellations: [], bands: ['B04'], epsg: 32633,
  resolution: 10, dataType: 'UInt16', footprint: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] }, tileGuid: null,
  storagePath: '2026/10/03/a.tif', acquiredBy: 'A. Analyst', acquiredAt: '2026-10-03T09:00:00.000Z', costEur: 1, request: null, stac: null,
};

describe('paths inside the shared store', () => {
  it('takes relative paths with forward slashes', () => {
    expect(storagePathProblem('a.tif')).toBeNull();
    expect(storagePathProblem('2026/10/03/composite..v2.tif')).toBeNull();
  });

  it.each([
    ['', 'the storage path is empty'],
    ['../x.tif', 'the storage path leaves the share (..)'],
    ['a/../../x.tif', 'the storage path leaves the share (..)'],
    ['/etc/passwd', 'the storage path is absolute'],
    ['C:/Windows/x.tif', 'the storage path names a drive'],
    ['c:x.tif', 'the storage path names a drive'],
    ['a\\b.tif', 'the storage path contains a backslash (only forward slashes are allowed)'],
    ['a\0b.tif', 'the storage path contains a NUL character'],
    ['a\nb.tif', 'the storage path contains a control character'],
    ['a//b.tif', 'the storage path has an empty or "." segment'],
    ['./a.tif', 'the storage path has an empty or "." segment'],
    ['a/', 'the storage path has an empty or "." segment'],
    ['x'.repeat(1025), 'the storage path is 1025 characters long (limit 1024)'],
  ])('refuses %j: %s', (p, reason) => {
    expect(storagePathProblem(p)).toBe(reason);
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
    expect(() => parseInput({ ...good, storagePath: 'a\0b' })).toThrow('storagePath: the storage path contains a NUL character');
  });
});

describe('the connection', () => {
  it('keeps the password out of where it connects, and checks the certificate whenever TLS is asked for', () => {
    const c = connectionConfig('postgres://ignored:url-secret@db.example.org:6543/team?sslmode=require', { role: 'alice', password: 'keychain-secret' });
    expect(c.where).toBe('alice@db.example.org:6543/team (TLS)');
    expect(c.config).toMatchObject({ host: 'db.example.org', port: 6543, database: 'team', user: 'alice', password: 'keychain-secret', application_name: 'swath', ssl: { rejectUnauthorized: true, servername: 'db.example.org' } });
    expect(connectionConfig('postgres://u:url-secret@h/db', {}).password).toBe('url-secret');
    expect(connectionConfig('postgres://u@h/db', {}, { tls: true }).config.ssl).toMatchObject({ rejectUnauthorized: true });
    expect(connectionConfig('postgres://u@h/db', {}).config.ssl).toBe(false);
    expect(() => connectionConfig('https://h/db', {})).toThrow('must start with postgres:// or postgresql://');
    expect(() => connectionConfig('postgres://u@h/db?sslmode=disable', {}, { tls: true })).toThrow('The policy asks for TLS but the team catalog URL says sslmode=disable.');
    expect(() => connectionConfig('postgres://h/db', {})).toThrow('No catalog role');
  });
});

describe('a teammate\'s row as the app shows it', () => {
  it('carries no control characters in its names, whatever the teammate wrote', () => {
    const hostile = 'mallory\u001b[2J\r\nteam: alice bought everything\u0085\u2028';
    const read = parseRow({
      ...good, id: '7', registeredAt: '2026-10-03T09:00:01.000Z', too_big: null, footprint: JSON.stringify(good.footprint),
      acquiredBy: hostile, model: `m${hostile}`, dataType: 'UInt16\u0007', bands: [`B04${hostile}`], constellations: [hostile],
    });
    expect('raster' in read).toBe(true);
    if (!('raster' in read)) return;
    const r = read.raster;
    for (const text of [r.acquiredBy, r.model!, r.dataType!, ...r.bands, ...r.constellations]) {
      // eslint-disable-next-line no-control-regex
      expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    }
    expect(r.acquiredBy).toBe('mallory\\u001b[2J\\r\\nteam: alice bought everything\\u0085\\u2028');
  });
});
