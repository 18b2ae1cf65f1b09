import { benchBrief } from './brief.bench.js';
import { benchDownloads } from './downloads.bench.js';
import { benchDownloadsHistory } from './downloads-history.bench.js';
import { benchFields } from './fields.bench.js';
import { benchFieldsImport } from './fields-import.bench.js';
import { benchGeotiff } from './geotiff.bench.js';
import { benchHostile } from './hostile.bench.js';
import { benchLibrary } from './library.bench.js';
import { benchOrders } from './orders.bench.js';
import { formatFigure, machineFigure, parseBenchArgs, type Figure } from './method.js';
import { benchPreview } from './preview.bench.js';
import { benchRenderer } from './renderer.bench.js';
import { benchSimulator } from './simulator.bench.js';
import { benchTeam } from './team.bench.js';
import { benchTimelapse } from './timelapse.bench.js';
import { benchWatches } from './watches.bench.js';

// `npm run bench`: every benchmark of the project, one line per figure as
// `<name>: <value> <unit>  (details)`. Figures are printed, never asserted.
// `npm run bench -- preview downloads` runs only the named benchmarks;
// `npm run bench -- --repeat 2 preview` runs them twice in a row (each run's figures in turn).
const BENCHES: [string, () => Promise<Figure[]>][] = [
  ['simulator', benchSimulator],
  ['geotiff', benchGeotiff],
  ['downloads', benchDownloads],
  ['downloads-history', benchDownloadsHistory],
  ['renderer', benchRenderer],
  ['preview', benchPreview],
  ['hostile', benchHostile],
  ['library', benchLibrary],
  ['team', benchTeam],
  ['orders', benchOrders],
  ['watches', benchWatches],
  ['fields', benchFields],
  ['fields-import', benchFieldsImport],
  ['brief', benchBrief],
  ['timelapse', benchTimelapse],
];

async function main(): Promise<void> {
  const { only, repeat } = parseBenchArgs(process.argv.slice(2), BENCHES.map(([n]) => n));
  let failed = false;
  for (let run = 1; run <= repeat; run++) {
    const tag = repeat > 1 ? `run ${run} of ${repeat}; ` : '';
    const machine = machineFigure();
    console.log(formatFigure({ ...machine, note: tag + machine.note }));
    for (const [name, bench] of BENCHES) {
      if (only.length && !only.includes(name)) continue;
      try {
        for (const f of await bench()) console.log(formatFigure(f));
      } catch (e) {
        failed = true;
        console.error(`bench ${name} failed: ${(e as Error).message}`);
      }
    }
  }
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error((e as Error).message);
  process.exit(2);
});
