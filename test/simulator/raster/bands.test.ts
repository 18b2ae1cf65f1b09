import { describe, expect, it } from 'vitest';
import { parseBandnames } from '../../../simulator/raster/index.js';

function names(expr: string): string[] {
  const r = parseBandnames(expr);
  if (!r.ok) throw new Error(`expected ok for ${expr}: ${r.reason}`);
  return r.bands.map((b) => b.name);
}

function reason(expr: string): string {
  const r = parseBandnames(expr);
  if (r.ok) throw new Error(`expected rejection for ${expr}`);
  return r.reason;
}

describe('parseBandnames', () => {
  it('expands rgb to B4,B3,B2', () => {
    expect(names('rgb')).toEqual(['B4', 'B3', 'B2']);
    expect(names(' RGB ')).toEqual(['B4', 'B3', 'B2']);
  });

  it('expands all to the ten bands in contract order', () => {
    expect(names('all')).toEqual(['B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'B8', 'B8A', 'B11', 'B12']);
    expect(names('All')).toHaveLength(10);
  });

  it('rejects rgb or all combined with anything', () => {
    expect(reason('rgb,B2')).toMatch(/rgb/);
    expect(reason('B2,rgb')).toMatch(/rgb/);
    expect(reason('all,ndvi')).toMatch(/all/);
    expect(reason('rgb,all')).toMatch(/rgb|all/);
  });

  it('keeps the order of a comma list', () => {
    expect(names('B8,B2,B12,B8A')).toEqual(['B8', 'B2', 'B12', 'B8A']);
  });

  it('accepts case-insensitive names and trims whitespace', () => {
    expect(names(' b4 , b8a,B11 ')).toEqual(['B4', 'B8A', 'B11']);
  });

  it('parses [A_B] indices with their bands', () => {
    const r = parseBandnames('B4,[B8_B11],[b3_b8]');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.bands).toEqual([
      { kind: 'band', name: 'B4' },
      { kind: 'index', a: 'B8', b: 'B11', name: '[B8_B11]' },
      { kind: 'index', a: 'B3', b: 'B8', name: '[B3_B8]' },
    ]);
  });

  it('treats ndvi as an alias for [B8_B4]', () => {
    const r = parseBandnames('B2,NDVI');
    expect(r.ok && r.bands[1]).toEqual({ kind: 'index', a: 'B8', b: 'B4', name: '[B8_B4]' });
  });

  it('names an unknown band in the reason', () => {
    expect(reason('B2,B13')).toContain('B13');
    expect(reason('B1')).toContain('B1');
    expect(reason('[B8_B13]')).toContain('B13');
  });

  it('rejects malformed indices and empty items', () => {
    expect(reason('[B8_]')).toMatch(/index|band/i);
    expect(reason('[_B4]')).toMatch(/index|band/i);
    expect(reason('[B8B4]')).toMatch(/index/i);
    expect(reason('[B8_B4')).toMatch(/index/i);
    expect(reason('B8_B4]')).toMatch(/index/i);
    expect(reason('[B8_B4_B3]')).toMatch(/index/i);
    expect(reason('B2,,B3')).toMatch(/empty/i);
    expect(reason('B2,')).toMatch(/empty/i);
    expect(reason('')).toMatch(/empty/);
    expect(reason('   ')).toMatch(/empty/);
  });

  it('keeps duplicates (one output band per listed item)', () => {
    expect(names('B2,B2,ndvi,[B8_B4]')).toEqual(['B2', 'B2', '[B8_B4]', '[B8_B4]']);
  });
});
