/** The one files module: atomic replacement, JSON documents, publishing without replacing; real files in a temp folder. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAbortError } from '../../../common/abort';
import {
  namePart,
  JsonFileError, JsonStore, numberedName, publishNumbered, publishWithoutReplacing, readJsonFile, removeStaleTempFiles, replaceWithPart, writeFileAtomic,
  writeJsonAtomic, writeNewFile, writeNumberedFile,
} from '../../../main/shared/files';
import { AppError } from '../../../common/errors';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'swath-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces the file whole and leaves no temporary file beside it', async () => {
    const file = path.join(dir, 'nested', 'state.json');
    await writeFileAtomic(file, 'old');
    await writeFileAtomic(file, 'new content');
    expect(readFileSync(file, 'utf8')).toBe('new content');
    expect(readdirSync(path.dirname(file))).toEqual(['state.json']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('gives a file meant for others the mode asked for', async () => {
    const file = path.join(dir, 'mosaic.vrt');
    await writeFileAtomic(file, '<VRTDataset/>', { mode: 0o644 });
    expect(statSync(file).mode & 0o777).toBe(0o644);
  });

  it('leaves the old file untouched and removes its temporary file when the write fails', async () => {
    const file = path.join(dir, 'state.json');
    writeFileSync(file, 'old');
    // A folder under the final name: the rename fails after the temporary file was written.
    const blocked = path.join(dir, 'blocked');
    await writeFileAtomic(path.join(blocked, 'x'), 'x');
    await expect(writeFileAtomic(blocked, 'never')).rejects.toThrow();
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'state.json']);
  });

  it('removeStaleTempFiles removes what a crashed write left, and nothing else', async () => {
    const file = path.join(dir, 'profiles.json');
    writeFileSync(path.join(dir, '.profiles.json.999-deadbeef.tmp'), '{"torn');
    writeFileSync(path.join(dir, '.other.json.999-deadbeef.tmp'), '{}');
    await writeFileAtomic(file, '{}');
    await removeStaleTempFiles(file);
    expect(readdirSync(dir).sort()).toEqual(['.other.json.999-deadbeef.tmp', 'profiles.json']);
  });
});

describe('JSON documents', () => {
  it('writes, reads back, and reads a missing file as null; a torn file is an error naming it', async () => {
    const file = path.join(dir, 'settings.json');
    expect(await readJsonFile(file)).toBeNull();
    await writeJsonAtomic(file, { version: 1, theme: 'dark' });
    expect(await readJsonFile(file)).toEqual({ version: 1, theme: 'dark' });
    writeFileSync(file, '{"version":1,');
    await expect(readJsonFile(file)).rejects.toThrow(`${file} is not valid JSON`);
  });

  it('a versioned document is read only at its version: another version, or none, is invalid, naming the file', async () => {
    const file = path.join(dir, 'batch.json');
    expect(await readJsonFile(file, undefined, 1)).toBeNull();
    await writeJsonAtomic(file, { version: 1, parts: ['a'] });
    expect(await readJsonFile(file, undefined, 1)).toEqual({ version: 1, parts: ['a'] });
    await writeJsonAtomic(file, { version: 2, parts: ['a'] });
    const refused = await readJsonFile(file, undefined, 1).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JsonFileError);
    expect(refused).toMatchObject({ problem: 'invalid', message: `${file} is not a version 1 document (its version: 2).` });
    writeFileSync(file, 'null');
    await expect(readJsonFile(file, undefined, 1)).rejects.toMatchObject({ problem: 'invalid', message: `${file} is not a version 1 document (its version: none).` });
  });

  it('tells a file it could not read from one that is not JSON, and passes an abort through as an abort', async () => {
    const folder = path.join(dir, 'a-folder.json');
    mkdirSync(folder);
    await expect(readJsonFile(folder)).rejects.toMatchObject({ name: 'JsonFileError', problem: 'unreadable' });
    const file = path.join(dir, 'torn.json');
    writeFileSync(file, '{');
    await expect(readJsonFile(file)).rejects.toMatchObject({ name: 'JsonFileError', problem: 'invalid' });
    const abort = new AbortController();
    abort.abort();
    await writeJsonAtomic(file, { version: 1 });
    const error = await readJsonFile(file, abort.signal).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
  });

  it('writes a compact document on one line when asked to', async () => {
    const file = path.join(dir, 'state.json');
    await writeJsonAtomic(file, { version: 1, accounts: { a: 1 } }, undefined, { compact: true });
    expect(readFileSync(file, 'utf8')).toBe('{"version":1,"accounts":{"a":1}}');
  });

  it('JsonStore writes the latest snapshot once every save has resolved', async () => {
    const file = path.join(dir, 'notices.json');
    let state = 0;
    const store = new JsonStore(file, () => ({ state }));
    const saves = [1, 2, 3].map((n) => { state = n; return store.save(); });
    await Promise.all(saves);
    expect(await readJsonFile(file)).toEqual({ state: 3 });
  });
});

describe('publishWithoutReplacing', () => {
  it('publishes under a free name: the target holds the part whole and the part is gone', async () => {
    const part = path.join(dir, '.scene.tif.abc.part');
    const target = path.join(dir, 'scene.tif');
    writeFileSync(part, 'pixels');
    expect(await publishWithoutReplacing(part, target)).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('pixels');
    expect(readdirSync(dir)).toEqual(['scene.tif']);
  });

  it('never replaces an existing file: false, the existing file unchanged, the part kept for another name', async () => {
    const part = path.join(dir, '.scene.tif.abc.part');
    const target = path.join(dir, 'scene.tif');
    writeFileSync(target, 'theirs');
    writeFileSync(part, 'mine');
    expect(await publishWithoutReplacing(part, target)).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('theirs');
    expect(readFileSync(part, 'utf8')).toBe('mine');
  });

  it('a name taken by a folder is taken too', async () => {
    const part = path.join(dir, '.x.part');
    writeFileSync(part, 'mine');
    await writeFileAtomic(path.join(dir, 'x', 'inside'), '');
    expect(await publishWithoutReplacing(part, path.join(dir, 'x'))).toBe(false);
    expect(readFileSync(part, 'utf8')).toBe('mine');
  });
});

describe('namePart: a name part from free text', () => {
  it('keeps ASCII letters and digits, folds accents, joins the rest with one dash, and never makes a path', () => {
    expect(namePart('Brandenburg – Wheat 2026', 'x')).toBe('Brandenburg-Wheat-2026');
    expect(namePart('Müller Äcker', 'x')).toBe('Muller-Acker');
    expect(namePart('../../etc/passwd', 'x')).toBe('etc-passwd');
    expect(namePart('C:\\Users\\a', 'x')).toBe('C-Users-a');
  });
  it('falls back when nothing is left, and cuts at the length asked', () => {
    expect(namePart('日本', 'parcels')).toBe('parcels');
    expect(namePart('---', 'watch')).toBe('watch');
    expect(namePart('a'.repeat(100), 'x')).toHaveLength(60);
    expect(namePart('b'.repeat(100), 'x', 40)).toHaveLength(40);
  });
});

describe('publishNumbered: the first free numbered name', () => {
  const partWith = (text: string, n = 0): string => {
    const part = path.join(dir, `.brief.pdf.${n}.part`);
    writeFileSync(part, text);
    return part;
  };

  it('numbers before the extension: name-2 for exports, "name (1)" for downloads', () => {
    expect([0, 1, 2].map((i) => numberedName('brief.pdf', i))).toEqual(['brief.pdf', 'brief-2.pdf', 'brief-3.pdf']);
    expect([0, 1, 12].map((i) => numberedName('a.b.tif', i, 'copy'))).toEqual(['a.b.tif', 'a.b (1).tif', 'a.b (12).tif']);
    expect(numberedName('.hidden', 1)).toBe('.hidden-2');
  });

  it('skips taken names, whatever holds them, and leaves them as they were; the part is gone', async () => {
    writeFileSync(path.join(dir, 'brief.pdf'), 'first');
    mkdirSync(path.join(dir, 'brief-2.pdf'));
    const part = partWith('mine');
    expect(path.basename(await publishNumbered(part, path.join(dir, 'brief.pdf')))).toBe('brief-3.pdf');
    expect(readFileSync(path.join(dir, 'brief.pdf'), 'utf8')).toBe('first');
    expect(readFileSync(path.join(dir, 'brief-3.pdf'), 'utf8')).toBe('mine');
    expect(readdirSync(dir).sort()).toEqual(['brief-2.pdf', 'brief-3.pdf', 'brief.pdf']);
  });

  it('a copy of "x (2).tif" goes on at "x (3).tif"', async () => {
    writeFileSync(path.join(dir, 'x (2).tif'), 'theirs');
    const part = partWith('mine');
    expect(path.basename(await publishNumbered(part, path.join(dir, 'x (2).tif'), { naming: 'copy' }))).toBe('x (3).tif');
  });

  it('publishers racing for one name all succeed under different names, and none replaces another', async () => {
    writeFileSync(path.join(dir, 'brief.pdf'), 'earlier');
    const texts = Array.from({ length: 12 }, (_, i) => `publisher ${i}`);
    const published = await Promise.all(texts.map((t, i) => publishNumbered(partWith(t, i), path.join(dir, 'brief.pdf'))));
    expect(new Set(published).size).toBe(texts.length);
    expect(published.map((f) => readFileSync(f, 'utf8'))).toEqual(texts);
    expect(readFileSync(path.join(dir, 'brief.pdf'), 'utf8')).toBe('earlier');
    expect(readdirSync(dir)).toHaveLength(texts.length + 1);
  });

  it('gives up after maxTries names with an io error naming the file, the folder and the count; the part is removed', async () => {
    for (const n of ['brief.pdf', 'brief-2.pdf', 'brief-3.pdf']) writeFileSync(path.join(dir, n), n);
    const part = partWith('mine');
    const failed = publishNumbered(part, path.join(dir, 'brief.pdf'), { maxTries: 3 });
    await expect(failed).rejects.toBeInstanceOf(AppError);
    await expect(failed).rejects.toMatchObject({ kind: 'io', message: `No free name for brief.pdf in ${dir}: 3 numbered names are taken.` });
    expect(readdirSync(dir).sort()).toEqual(['brief-2.pdf', 'brief-3.pdf', 'brief.pdf']);
    for (const n of ['brief.pdf', 'brief-2.pdf', 'brief-3.pdf']) expect(readFileSync(path.join(dir, n), 'utf8')).toBe(n);
  });

  it('stops between tries when aborted: an AbortError, nothing published, the part removed', async () => {
    for (const n of ['brief.pdf', 'brief-2.pdf']) writeFileSync(path.join(dir, n), n);
    // A signal that fires once two names have been tried.
    let looks = 0;
    const signal = { get aborted() { return ++looks > 2; }, reason: undefined } as unknown as AbortSignal;
    const error = await publishNumbered(partWith('mine'), path.join(dir, 'brief.pdf'), { signal }).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['brief-2.pdf', 'brief.pdf']);
  });

  it('writeNumberedFile writes the bytes or runs the writer on a hidden part; a failed writer leaves nothing', async () => {
    expect(path.basename(await writeNumberedFile(path.join(dir, 'out', 'a.csv'), 'x,y\n'))).toBe('a.csv');
    const second = await writeNumberedFile(path.join(dir, 'out', 'a.csv'), async (part) => writeNewFile(part, 'from the writer', 0o644));
    expect(path.basename(second)).toBe('a-2.csv');
    expect(readFileSync(second, 'utf8')).toBe('from the writer');
    expect(statSync(second).mode & 0o777).toBe(0o644);
    const failing = writeNumberedFile(path.join(dir, 'out', 'a.csv'), async (part) => {
      writeFileSync(part, 'half');
      throw new Error('disk full');
    });
    await expect(failing).rejects.toThrow('disk full');
    expect(readdirSync(path.join(dir, 'out')).sort()).toEqual(['a-2.csv', 'a.csv']);
  });
});

describe('writeNewFile and replaceWithPart: the part-file discipline of streamed writes', () => {
  it('writeNewFile writes text given a piece at a time, fsynced, and never over an existing file', async () => {
    const file = path.join(dir, 'manifest.json');
    await writeNewFile(file, ['{"files":[', '"a"', ']}'], 0o644);
    expect(readFileSync(file, 'utf8')).toBe('{"files":["a"]}');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    await expect(writeNewFile(file, 'other', 0o644)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(file, 'utf8')).toBe('{"files":["a"]}');
  });

  it('replaceWithPart gives the part its name over what was there, and the part is gone', async () => {
    const part = path.join(dir, 'out.tif.part');
    const target = path.join(dir, 'out.tif');
    writeFileSync(target, 'old');
    writeFileSync(part, 'new');
    await replaceWithPart(part, target);
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['out.tif']);
  });

  it('replaceWithPart removes the part when the rename fails, and leaves the target as it was', async () => {
    const part = path.join(dir, 'out.tif.part');
    const target = path.join(dir, 'out.tif');
    mkdirSync(target);
    writeFileSync(path.join(target, 'inside'), 'kept');
    writeFileSync(part, 'new');
    await expect(replaceWithPart(part, target)).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['out.tif']);
    expect(readFileSync(path.join(target, 'inside'), 'utf8')).toBe('kept');
  });
});
