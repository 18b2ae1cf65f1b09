import { describe, expect, it } from 'vitest';
import {
  MAX_FILE_NAME_BYTES, describedFileName, describedStem, productLabel, sanitizeFileName,
} from '../../../main/downloads/file-name.js';

const FB = 'composite_20261117.tif';

describe('sanitizeFileName', () => {
  it.each([
    ['../../etc/passwd', 'passwd.tif'],
    ['..\\..\\Windows\\System32\\evil.tif', 'evil.tif'],
    ['/etc/cron.d/job.tif', 'job.tif'],
    ['C:\\Users\\me\\x.tif', 'x.tif'],
    ['C:evil.tif', 'evil.tif'],
    ['\\\\server\\share\\x.tif', 'x.tif'],
    ['..', FB],
    ['../', FB],
    ['...', FB],
    ['./.bashrc', 'bashrc.tif'],
    ['%2e%2e%2fx.tif', '%2e%2e%2fx.tif'],
    ['a/../../b.tif', 'b.tif'],
  ])('strips traversal from %j', (raw, want) => {
    const out = sanitizeFileName(raw, FB);
    expect(out).toBe(want);
    expect(out).not.toMatch(/[/\\]/);
    expect(out).not.toMatch(/^\.\.?$/);
  });

  it('removes control and bidi characters and replaces Windows-forbidden ones', () => {
    expect(sanitizeFileName('a\u0000b\u0007c\r\n.tif', FB)).toBe('abc.tif');
    expect(sanitizeFileName('report\u202Efit.exe', FB)).toBe('reportfit.exe.tif');
    expect(sanitizeFileName('a<b>c:d"e|f?g*h.tif', FB)).toBe('a_b_c_d_e_f_g_h.tif');
  });

  it.each(['CON', 'con.tif', 'PRN.tif', 'AUX', 'NUL.tiff', 'COM1.tif', 'com9.backup.tif', 'LPT1', 'lpt9.TIF', 'CON .tif', 'COM¹.tif'])(
    'defuses the Windows reserved name %j',
    (raw) => {
      const out = sanitizeFileName(raw, FB);
      expect(out.startsWith('_')).toBe(true);
      expect(out).toMatch(/\.tiff?$/i);
    },
  );

  it('keeps ordinary names that merely contain a reserved word', () => {
    expect(sanitizeFileName('console.tif', FB)).toBe('console.tif');
    expect(sanitizeFileName('COM10.tif', FB)).toBe('COM10.tif');
  });

  it('strips trailing dots and spaces and leading dots', () => {
    expect(sanitizeFileName('name.tif. . ', FB)).toBe('name.tif');
    expect(sanitizeFileName('  .hidden.tif', FB)).toBe('hidden.tif');
    expect(sanitizeFileName('stem .tif', FB)).toBe('stem.tif');
  });

  it('forces a GeoTIFF extension', () => {
    expect(sanitizeFileName('payload.exe', FB)).toBe('payload.exe.tif');
    expect(sanitizeFileName('noext', FB)).toBe('noext.tif');
    expect(sanitizeFileName('keep.TIFF', FB)).toBe('keep.TIFF');
  });

  it('caps the length in UTF-8 bytes without splitting characters', () => {
    const out = sanitizeFileName(`${'é'.repeat(300)}.tif`, FB);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    expect(out.endsWith('.tif')).toBe(true);
    expect(out).not.toContain('\uFFFD');
    const emoji = sanitizeFileName(`${'😀'.repeat(100)}.tif`, FB);
    expect(Buffer.byteLength(emoji)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    expect([...emoji.slice(0, -4)].every((c) => c === '😀')).toBe(true);
  });

  it('uses the fallback for empty or missing names', () => {
    expect(sanitizeFileName(null, FB)).toBe(FB);
    expect(sanitizeFileName('', FB)).toBe(FB);
    expect(sanitizeFileName('\u0000\u0001', FB)).toBe(FB);
    expect(sanitizeFileName('///', FB)).toBe(FB);
  });
});

describe('names that say what a file is', () => {
  const SERVER = 'composite_20261015_Stratus2_32633_10m.tif';
  const req = (Bandnames: string) => ({ Date: '2026-10-15', Model: 'Stratus2', EpsgProjection: 32633, Resolution: 10, Bandnames });

  it('names the product or bands as analysts write them', () => {
    expect(productLabel('ndvi')).toBe('ndvi');
    expect(productLabel('RGB')).toBe('rgb');
    expect(productLabel('all')).toBe('all');
    expect(productLabel('[B8_B4]')).toBe('B8_B4');
    expect(productLabel('b4, B3,B2')).toBe('B4-B3-B2');
    expect(productLabel('[b8_b4],B11')).toBe('B8_B4-B11');
    expect(productLabel('B99')).toBeNull();
    expect(productLabel(undefined)).toBeNull();
  });

  it('puts the product after the date of the service name, so an NDVI and an RGB composite of one date differ', () => {
    const ndvi = describedFileName('composite', req('ndvi'), SERVER);
    const rgb = describedFileName('composite', req('rgb'), SERVER);
    expect(ndvi).toBe('composite_20261015_ndvi_Stratus2_32633_10m.tif');
    expect(rgb).toBe('composite_20261015_rgb_Stratus2_32633_10m.tif');
    expect(describedFileName('composite', req('[B8_B4]'), SERVER)).toBe('composite_20261015_B8_B4_Stratus2_32633_10m.tif');
    expect(describedFileName('composite', req('B4,B3,B2'), SERVER)).toBe('composite_20261015_B4-B3-B2_Stratus2_32633_10m.tif');
    // A name that already says it is left alone; one without a date gets the product at the end.
    expect(describedFileName('composite', req('ndvi'), 'composite_20261015_ndvi_Stratus2_32633_10m.tif')).toBe('composite_20261015_ndvi_Stratus2_32633_10m.tif');
    expect(describedFileName('tile', req('rgb'), 'tile.tif')).toBe('tile_rgb.tif');
  });

  it('builds the whole name from the request when the service suggests none', () => {
    expect(describedFileName('composite', req('ndvi'), null)).toBe('composite_20261015_ndvi_Stratus2_32633_10m.tif');
    expect(describedFileName('minitile', { Bandnames: 'B8' }, undefined, Date.parse('2026-01-02T00:00:00Z'))).toBe('minitile_20260102_B8.tif');
    expect(describedStem({ kind: '../x', date: '2026-01-01', model: 'a/b', epsg: 4326.5, resolution: -1 })).toBe('x_20260101_ab');
  });

  it('keeps the safety rules on the combined name', () => {
    const evil = describedFileName('composite', req('ndvi'), '../../CON');
    expect(evil).toBe('_CON_ndvi.tif');
    const long = describedFileName('composite', req('B2,B3,B4,B5,B6,B7,B8,B8A,B11,B12'), `composite_20261015_${'x'.repeat(300)}.tif`);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    expect(long).toMatch(/^composite_20261015_B2-B3-B4-B5-B6-B7-B8-B8A-B11-B12_x+\.tif$/);
  });
});
