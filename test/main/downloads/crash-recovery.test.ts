import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, watch } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { DownloadQueue, QUEUE_FILE, type DownloadJob } from '../../../main/downloads/index.js';
import { DATABASE_FILE } from '../../../main/shared/database.js';
import { LibraryCatalog } from '../../../main/library/index.js';
import { utmSquareWkt } from '../../bench/simulator.bench.js';
import { startTestSim, type TestSim } from '../../simulator/helpers.js';
import { fetchSource, partFiles, referenceSha, sha256Of } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');

let sim: TestSim;
let work: string;
beforeAll(async () => {
  sim = await startTestSim();
  work = mkdtempSync(path.join(os.tmpdir(), 'swath-crash-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(work, { recursive: true, force: true });
});

it('a SIGKILL mid-download leaves only a .part; the next start cleans it and fails the job without sending it again (it was charged); Retry finishes it', async () => {
  const stateDir = path.join(work, 'userData');
  const targetDir = path.join(work, 'Downloads');
  mkdirSync(targetDir, { recursive: true });
  // ~20 km x 20 km at 10 m, 4 INT16 bands: about 43 MB of pixels, about 6 MB DEFLATE-compressed,
  // throttled in the child so the kill lands mid-transfer (the child says MIDWAY after 1 MB).
  const request = {
    Wkt: utmSquareWkt(20_000), Date: '2026-11-20', Model: 'Stratus2', Resolution: 10, EpsgProjection: 32633,
    Bandnames: 'B2,B3,B4,B8', AutomaticOrderCreation: true,
  };
  const ref = await referenceSha(sim.url, 'composite', request);
  expect(ref.bytes).toBeGreaterThan(5e6);

  // Every name that appears in the folder while the child runs: a final-looking name must never show up.
  const seen = new Set<string>();
  const watcher = watch(targetDir, (_e, name) => { if (name) seen.add(name.toString()); });
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'crash-child.ts'), stateDir, targetDir, sim.url, JSON.stringify(request), String(1e6)], {
    cwd: root, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => { stderr += c; });
  const midway = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const line = out.split('\n').find((l) => l.startsWith('MIDWAY') || l.startsWith('FINISHED'));
      if (line) resolve(line);
    });
    child.on('exit', (code) => reject(new Error(`child exited early with ${code}: ${stderr}`)));
  });
  expect(midway).toMatch(/^MIDWAY /);
  process.kill(child.pid!, 'SIGKILL');
  await new Promise((r) => child.once('exit', r));
  watcher.close();

  // What a crash leaves: the job persisted as running with its .part, which exists and is incomplete.
  const killed = new DatabaseSync(path.join(stateDir, DATABASE_FILE), { readOnly: true });
  const persisted = { jobs: (killed.prepare('SELECT job FROM download_jobs').all() as { job: string }[]).map((r) => JSON.parse(r.job) as DownloadJob) };
  killed.close();
  expect(existsSync(path.join(stateDir, QUEUE_FILE))).toBe(false);
  expect(persisted.jobs).toHaveLength(1);
  const crashed = persisted.jobs[0]!;
  expect(crashed.state).toBe('running');
  expect(crashed.partPath).toBe(path.join(targetDir, `${path.basename(crashed.partPath!, '.part')}.part`));
  expect(readdirSync(targetDir)).toEqual([path.basename(crashed.partPath!)]);
  expect(statSync(crashed.partPath!).size).toBeLessThan(ref.bytes);
  expect(seen).toContain(path.basename(crashed.partPath!));
  expect([...seen].filter((n) => !n.endsWith('.part'))).toEqual([]);

  // Restart in this process: recovery happens in open(), before anything runs.
  const library = await LibraryCatalog.open({ dir: stateDir });
  const source = fetchSource(sim.url);
  const q = await DownloadQueue.open({ stateDir, source, library, concurrency: 2, autoStart: false });
  // The child's POST was answered (its .part has bytes): the service charged it, and the next start does not buy it again.
  expect(crashed).toMatchObject({ sending: true, charged: 1 });
  const recovered = q.get(crashed.id)!;
  expect(recovered).toMatchObject({ state: 'failed', errorKind: 'transient', reason: expect.stringMatching(/^Interrupted: Swath stopped while this paid request was with the service\. It was not sent again.*\(it answered, so it charged\)/) });
  expect(recovered.partPath).toBeUndefined();
  expect(existsSync(crashed.partPath!)).toBe(false);
  expect(readdirSync(targetDir)).toEqual([]);

  q.start();
  await q.onIdle();
  expect(source.requests).toBe(0);
  // The analyst's retry sends it again.
  await q.retry(crashed.id);
  await q.onIdle();
  expect(source.requests).toBe(1);
  const done = q.get(crashed.id)!;
  expect(done.state).toBe('done');
  expect(done.file).toBe(crashed.partPath!.slice(0, -'.part'.length));
  expect(await sha256Of(done.file!)).toBe(ref.sha256);
  expect(statSync(done.file!).size).toBe(ref.bytes);
  expect(partFiles(targetDir)).toEqual([]);
  expect(readdirSync(targetDir)).toEqual([path.basename(done.file!)]);
  await library.flush();
  expect(library.get(done.libraryId!)).toMatchObject({ sha256: ref.sha256, size: ref.bytes, epsg: 32633, resolution: 10 });
  await q.close();
}, 120_000);
