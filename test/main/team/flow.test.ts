import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../../main/shared/database.js';
import { differencesInWords, ownershipQueryFor, suggestedStoragePath, teamRasterInputFor } from '../../../main/team/match.js';
import { RegistrationOutbox, type RegistrationPort } from '../../../main/team/outbox.js';
import { SharedStore } from '../../../main/team/share.js';
import type { TeamRasterInput } from '../../../main/team/types.js';
import { composite, entry } from './fixtures.js';

let tmp: string | null = null;

afterEach(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
  tmp = null;
});

it('a finished download goes into the share and is registered: the registration names a file inside the share with its sha256, and answers a teammate\'s identical request exactly', async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'swath-team-flow-'));
  const bytes = Buffer.alloc(256 * 1024, 3);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const file = path.join(tmp, 'alice', 'composite_20261003_Stratus2_32633_10m.tif');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, bytes);
  const downloaded = entry({ path: file, size: (await stat(file)).size, sha256 });

  await mkdir(path.join(tmp, 'share'));
  const store = new SharedStore({ root: path.join(tmp, 'share') });
  const storagePath = await store.put(file, sha256, suggestedStoragePath(downloaded), new AbortController().signal);
  expect(storagePath).toBe('composite/2026/composite_20261003_Stratus2_32633_10m.tif');

  const received: TeamRasterInput[] = [];
  const port: RegistrationPort = { register: async (input) => received.push(input) };
  const { db } = await openDatabase({ dir: path.join(tmp, 'userData') });
  const outbox = new RegistrationOutbox({ db, port });
  try {
    outbox.enqueue(teamRasterInputFor(downloaded, storagePath, 'A. Analyst', 1.5));
    await outbox.idle();
  } finally {
    await outbox.close();
    db.close();
  }

  expect(received).toHaveLength(1);
  const registered = received[0]!;
  const copy = await store.resolve(registered.storagePath);
  expect(createHash('sha256').update(await readFile(copy)).digest('hex')).toBe(registered.sha256);
  const teammate = ownershipQueryFor('composite', composite({ bandnames: 'B2,B3,B4' }));
  expect(differencesInWords(teammate.query!, { ...registered, id: '1', registeredAt: '2026-10-03T08:00:01Z' })).toEqual([]);
});
