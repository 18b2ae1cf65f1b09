// Child process of crash-recovery.test.ts: starts one slow download and reports when bytes are
// flowing, so the parent can SIGKILL it mid-transfer. Never imported by tests directly.
import { DownloadQueue } from '../../../main/downloads/index.js';
import { fetchSource } from './helpers.js';

async function main(): Promise<void> {
  const [stateDir, targetDir, simUrl, requestJson, threshold] = process.argv.slice(2);
  if (!stateDir || !targetDir || !simUrl || !requestJson) throw new Error('usage: crash-child <stateDir> <targetDir> <simUrl> <requestJson> [bytes]');
  const q = await DownloadQueue.open({ stateDir, source: fetchSource(simUrl, { chunkDelayMs: 5 }), concurrency: 1, progressIntervalMs: 20 });
  const job = await q.add({ kind: 'composite', request: JSON.parse(requestJson) as Record<string, unknown>, targetDir });
  let told = false;
  q.on('progress', (p) => {
    if (!told && p.bytes >= Number(threshold ?? 1)) {
      told = true;
      process.stdout.write(`MIDWAY ${job.id} ${p.bytes} ${p.total}\n`);
    }
  });
  q.on('job', (j) => {
    if (j.state === 'done' || j.state === 'failed') process.stdout.write(`FINISHED ${j.state} ${j.reason ?? ''}\n`);
  });
}

main().catch((e: Error) => {
  process.stderr.write(`crash-child: ${e.stack ?? e.message}\n`);
  process.exit(1);
});
