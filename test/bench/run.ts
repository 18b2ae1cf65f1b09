import { benchDownloads } from './downloads.bench.js';
import { benchHostile } from './hostile.bench.js';
import { benchPreview } from './preview.bench.js';
import { benchRenderer } from './renderer.bench.js';
import { benchSimulator, type Figure } from './simulator.bench.js';

// `npm run bench`: every benchmark of the project, one line per figure as
// `<name>: <value> <unit>`. Figures are printed, never asserted.
const BENCHES: [string, () => Promise<Figure[]>][] = [
  ['simulator', benchSimulator],
  ['downloads', benchDownloads],
  ['renderer', benchRenderer],
  ['preview', benchPreview],
  ['hostile', benchHostile],
];

async function main(): Promise<void> {
  // `npm run bench -- preview downloads` runs only the named benchmarks.
  const only = process.argv.slice(2);
  const unknown = only.filter((n) => !BENCHES.some(([name]) => name === n));
  if (unknown.length) throw new Error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHES.map(([n]) => n).join(', ')}`);
  let failed = false;
  for (const [name, run] of BENCHES) {
    if (only.length && !only.includes(name)) continue;
    try {
      for (const f of await run()) {
        console.log(`${f.name}: ${f.value.toFixed(f.value >= 100 ? 0 : 2)} ${f.unit}${f.note ? `  (${f.note})` : ''}`);
      }
    } catch (e) {
      failed = true;
      console.error(`bench ${name} failed: ${(e as Error).message}`);
    }
  }
  process.exit(failed ? 1 : 0);
}

void main();
