import { describe, expect, it } from 'vitest';
import { BANDNAMES_BANDS, parseBandnames } from '../../common/bandnames.js';

describe('parseBandnames', () => {
  it('expands the exclusive options rgb and all', () => {
    expect(parseBandnames('rgb')).toEqual({ ok: true, bands: ['B4', 'B3', 'B2'] });
    expect(parseBandnames(' ALL ')).toEqual({ ok: true, bands: [...BANDNAMES_BANDS] });
  });

  it('keeps the order of a band list, with [A_B] indices and the ndvi alias', () => {
    expect(parseBandnames('B8A,B11,B12')).toEqual({ ok: true, bands: ['B8A', 'B11', 'B12'] });
    expect(parseBandnames('B4, B3,B2,ndvi,[B3_B8], [ b11 _ b8a ]')).toEqual({ ok: true, bands: ['B4', 'B3', 'B2', '[B8_B4]', '[B3_B8]', '[B11_B8A]'] });
    expect(parseBandnames('NDVI')).toEqual({ ok: true, bands: ['[B8_B4]'] });
  });

  it('refuses rgb or all combined with other bands', () => {
    const r = parseBandnames('rgb,B8');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/"rgb" must be used alone/);
    expect(parseBandnames('B2,all').ok).toBe(false);
  });

  it('names the offending item: unknown bands, malformed indices, empty items', () => {
    const reason = (s: unknown) => {
      const r = parseBandnames(s);
      return r.ok ? null : r.reason;
    };
    expect(reason('B1')).toMatch(/Unknown band "B1" at position 1/);
    expect(reason('B2,B13')).toMatch(/Unknown band "B13" at position 2/);
    expect(reason('[B8-B4]')).toMatch(/Malformed index "\[B8-B4\]"/);
    expect(reason('[B8_B4')).toMatch(/Malformed index/);
    expect(reason('[B8_X]')).toMatch(/Unknown band "X" in index/);
    expect(reason('B2,,B3')).toMatch(/Empty band name at position 2/);
    expect(reason('B2,')).toMatch(/position 2/);
    expect(reason('')).toMatch(/empty/);
    expect(reason(42)).toMatch(/must be a string/);
  });
});
