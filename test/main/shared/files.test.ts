/** The one files module: atomic replacement, JSON documents, publishing without replacing; real files in a temp folder. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonStore, publishWithoutReplacing, readJsonFile, removeStaleTempFiles, writeFileAtomic, writeJsonAtomic } from '../../../main/shared/files';

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
