import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ICON_SIZES } from '../../scripts/icons';

// The committed icon set rendered from build/icon.svg by `npm run icons`.

const build = new URL('../../build/', import.meta.url);
const read = (rel: string) => readFileSync(new URL(rel, build));

/** Width and height from a PNG's IHDR chunk. */
function pngSize(data: Buffer): [number, number] {
  expect(data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  expect(data.toString('ascii', 12, 16)).toBe('IHDR');
  return [data.readUInt32BE(16), data.readUInt32BE(20)];
}

describe('icon set', () => {
  it('has an SVG source drawn for Swath', () => {
    const svg = read('icon.svg').toString('utf8');
    expect(svg).toMatch(/^<svg[^>]+viewBox="0 0 1024 1024"/);
    expect(svg).toContain('Swath');
  });

  it.each(ICON_SIZES.map((s) => [s]))('renders build/icons/%ix%i.png at that size, with alpha', (size) => {
    const data = read(`icons/${size}x${size}.png`);
    expect(pngSize(data)).toEqual([size, size]);
    // Colour type 6 = RGBA: the rounded corners are transparent.
    expect(data[25]).toBe(6);
  });

  it('has a 1024 px build/icon.png for electron-builder', () => {
    expect(pngSize(read('icon.png'))).toEqual([1024, 1024]);
  });

  it('has a Windows .ico with 16, 24, 32, 48, 64, 128 and 256 px entries', () => {
    const ico = read('icon.ico');
    expect(ico.readUInt16LE(0)).toBe(0);
    expect(ico.readUInt16LE(2)).toBe(1);
    const count = ico.readUInt16LE(4);
    const sizes = Array.from({ length: count }, (_, i) => ico[6 + i * 16] || 256).sort((a, b) => a - b);
    expect(sizes).toEqual(expect.arrayContaining([16, 24, 32, 48, 64, 128, 256]));
  });

  it('has a macOS .icns with entries from 16 to 1024 px', () => {
    const icns = read('icon.icns');
    expect(icns.toString('ascii', 0, 4)).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const types: string[] = [];
    for (let at = 8; at < icns.length; at += icns.readUInt32BE(at + 4)) types.push(icns.toString('ascii', at, at + 4));
    // is32+s8mk 16, il32+l8mk 32, ic07 128, ic08 256, ic09 512, ic10 1024 (512@2x), ic11/ic12/ic13/ic14 the other @2x.
    expect(types).toEqual(expect.arrayContaining(['is32', 's8mk', 'il32', 'l8mk', 'ic07', 'ic08', 'ic09', 'ic10', 'ic11', 'ic12', 'ic13', 'ic14']));
  });

  it('is what electron-builder picks up (buildResources: build) and what the Linux packages install', () => {
    const config = parse(readFileSync(new URL('../../electron-builder.yml', import.meta.url), 'utf8')) as { directories: { buildResources: string }; linux: { icon?: string }; win: { icon?: string }; mac: { icon?: string } };
    expect(config.directories.buildResources).toBe('build');
    expect(config.linux.icon).toBe('build/icons');
    expect(config.win.icon).toBe('build/icon.ico');
    expect(config.mac.icon).toBe('build/icon.icns');
  });
});
