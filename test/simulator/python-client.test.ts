import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from './helpers.js';

// pydantic v2 models of the shapes the production service's public Python client parses
// (python/client_shapes.py) read live answers, called the way that client's example calls.
const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'python', 'client_shapes.py');

function pythonMissing(): string | null {
  try {
    execFileSync('python3', ['-c', 'import pydantic, sys; sys.exit(0 if pydantic.VERSION.startswith("2") else 1)'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'python3 with pydantic v2 is not installed';
  }
}
const missing = pythonMissing();
if (missing) console.log(`Skipping the Python client check: ${missing}.`);

interface Check { name: string; ok: boolean; error: string | null }

async function runChecks(t: TestSim): Promise<Check[]> {
  // Asynchronously: the simulator answers from this same process.
  const { stdout } = await promisify(execFile)('python3', [SCRIPT, t.url, 'demo-key'], { timeout: 120_000 });
  return (JSON.parse(stdout) as { checks: Check[] }).checks;
}

const ALL = [
  'account info (apikey/info)', 'search/available', 'composite estimate', 'composite download', 'models', 'orders list',
  'tile search', 'order estimate (GEOMETRYCOLLECTION)', 'order create', 'order estimate (Tiles)', 'order cancel',
];

describe.skipIf(missing !== null)('the production service\'s Python client models parse the simulator\'s answers', () => {
  let prod: TestSim;
  let variant: TestSim;
  beforeAll(async () => {
    [prod, variant] = await Promise.all([startTestSim({ shapes: 'production' }), startTestSim({ shapes: 'variant' })]);
  });
  afterAll(() => Promise.all([prod.close(), variant.close()]));

  it('in the production style, every operation that client has parses', async () => {
    const checks = await runChecks(prod);
    expect(checks.map((c) => c.name)).toEqual(ALL);
    expect(checks.filter((c) => !c.ok)).toEqual([]);
  });

  it('in the variant style the same models fail where the shapes differ (the check can fail)', async () => {
    const failed = (await runChecks(variant)).filter((c) => !c.ok).map((c) => c.name);
    expect(failed).toEqual(expect.arrayContaining(['account info (apikey/info)', 'orders list', 'tile search', 'order estimate (GEOMETRYCOLLECTION)', 'order create']));
    // The contract names the model list; search/available keeps production's names in both styles.
    expect(failed).not.toContain('models');
    expect(failed).not.toContain('search/available');
  });
});
