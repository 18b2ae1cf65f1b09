import { parseArgs } from 'node:util';
import { startRasterThreads } from './raster/index.js';
import { startSimulator } from './server.js';

// `npm run simulator -- --port 8080 --state demo.json --seed 7 --faults 5xx=0.2`
const HELP = `Usage: npm run simulator -- [options]
  --port <p>              port on 127.0.0.1 (default 8080; 0 picks a free one)
  --state <file>          keep orders, ledger and vouchers in this JSON file
  --cache <dir>           directory for generated GeoTIFFs
  --seed <n>              seed for fault injection (default 1)
  --faults <spec>         e.g. "5xx=0.2,reset=0.05,slow=0.1,slowms=2000,truncate=0.1"
  --allow-upload-host <h> allow UploadUrl to target this host besides loopback (repeatable)
  --fast-orders           orders finish processing in seconds instead of about 90 s
  --shapes <style>        answer style: production (default, the production service's shapes)
                          or variant (legal under the contract, different in every "not shown" part)
Environment: SWATH_SIM_FAULTS, SWATH_SIM_SEED and SWATH_SIM_SHAPES are used when the flags are absent.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      state: { type: 'string' },
      cache: { type: 'string' },
      seed: { type: 'string' },
      faults: { type: 'string' },
      'allow-upload-host': { type: 'string', multiple: true },
      'fast-orders': { type: 'boolean', default: false },
      shapes: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, got ${values.port}`);
  const seedText = values.seed ?? process.env.SWATH_SIM_SEED;
  const seed = seedText === undefined ? 1 : Number(seedText);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${seedText}`);
  const sim = await startSimulator({
    port,
    statePath: values.state,
    cacheDir: values.cache,
    seed,
    faults: values.faults ?? process.env.SWATH_SIM_FAULTS,
    allowUploadHosts: values['allow-upload-host'],
    shapes: values.shapes ?? process.env.SWATH_SIM_SHAPES,
    lifecycle: values['fast-orders'] ? { review: 2000, preparing: 2000, awaiting: 2000, processing: 2000 } : undefined,
    log: (l) => console.error(l),
  });
  // Announced once its raster threads are up, so the first composite does not wait for them.
  await startRasterThreads();
  console.log(`Simulator listening on ${sim.url} (${sim.shapes} answers)`);
  const stop = () => {
    void sim.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: Error) => {
  console.error(`simulator: ${e.message}`);
  process.exit(1);
});
