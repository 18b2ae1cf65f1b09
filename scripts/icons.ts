import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import png2icons from 'png2icons';

/**
 * Renders build/icon.svg to every size the platforms need, with no download:
 * build/icons/<n>x<n>.png (Linux hicolor sizes, the window and tray icon),
 * build/icon.png (1024, electron-builder's source for Linux), build/icon.ico
 * (Windows, 16..256) and build/icon.icns (macOS, 16..1024). The outputs are
 * committed so `electron-builder` needs no extra step; `npm run icons`
 * regenerates them after the SVG changes (test/build/icons.test.ts checks them).
 */

/** Every PNG size rendered. */
export const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024] as const;

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const buildDir = path.join(root, 'build');

function render(svg: string, size: number): Buffer {
  return new Resvg(svg, { fitTo: { mode: 'width', value: size }, background: 'rgba(0,0,0,0)' }).render().asPng();
}

export function renderIcons(): string[] {
  const svg = readFileSync(path.join(buildDir, 'icon.svg'), 'utf8');
  mkdirSync(path.join(buildDir, 'icons'), { recursive: true });
  const written: string[] = [];
  const write = (rel: string, data: Buffer) => {
    writeFileSync(path.join(buildDir, rel), data);
    written.push(rel);
  };
  for (const size of ICON_SIZES) write(path.join('icons', `${size}x${size}.png`), render(svg, size));
  const master = render(svg, 1024);
  write('icon.png', master);
  // png2icons scales the 1024 master itself (bicubic) into each entry of the containers.
  const ico = png2icons.createICO(master, png2icons.BICUBIC2, 0, false, true);
  const icns = png2icons.createICNS(master, png2icons.BICUBIC2, 0);
  if (!ico || !icns) throw new Error('png2icons could not build the .ico/.icns');
  write('icon.ico', ico);
  write('icon.icns', icns);
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  for (const file of renderIcons()) console.log(`build/${file}`);
}
