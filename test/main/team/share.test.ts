import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { mkdir, open, readFile, readdir, realpath, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SharedStore, STALE_PART_MS } from '../../../main/team/share.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

let tmp: string;
let shareDir: string;
let store: SharedStore;
const never = new AbortController().signal;

async function local(name: string, content: Buffer | string): Promise<{ file: string; sha256: string }> {
  const file = path.join(tmp, 'local', name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return { file, sha256: sha(content) };
}

/** Every file under the share (relative, forward slashes), hidden ones included. */
async function listing(dir = shareDir): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isDirectory()) out.push(path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
  }
  return out.sort();
}

beforeEach(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'swath-share-'));
  shareDir = path.join(tmp, 'share');
  await mkdir(shareDir);
  store = new SharedStore({ root: shareDir });
});

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('SharedStore.put: atomic, checked copies into the share', () => {
  it('copies into new folders, returns the forward-slash storage path, leaves no .part, and resolve finds it inside the share', async () => {
    const content = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    const { file, sha256 } = await local('a.tif', content);
    const rel = await store.put(file, sha256, 'alice/2026/a.tif', never);
    expect(rel).toBe('alice/2026/a.tif');
    expect(await listing()).toEqual(['alice/2026/a.tif']);
    const abs = await store.resolve(rel);
    expect(abs).toBe(path.join(await realpath(shareDir), 'alice', '2026', 'a.tif'));
    expect(sha(await readFile(abs))).toBe(sha256);
  });

  it('reuses a file with the same sha256 at the name, and gives another file a unique name without touching the first', async () => {
    const a = await local('a.tif', 'first raster');
    const b = await local('b.tif', 'second raster, other bytes');
    expect(await store.put(a.file, a.sha256, 'x/r.tif', never)).toBe('x/r.tif');
    expect(await store.put(a.file, a.sha256, 'x/r.tif', never)).toBe('x/r.tif');
    expect(await store.put(b.file, b.sha256, 'x/r.tif', never)).toBe('x/r_1.tif');
    expect(await store.put(b.file, b.sha256, 'x/r.tif', never)).toBe('x/r_1.tif');
    expect(await listing()).toEqual(['x/r.tif', 'x/r_1.tif']);
    expect(await readFile(path.join(shareDir, 'x/r.tif'), 'utf8')).toBe('first raster');
  });

  it('two copies at the same moment: the same bytes end as one file, other bytes under a free name, none overwritten', async () => {
    const a = await local('a.tif', Buffer.alloc(2 * 1024 * 1024, 1));
    const b = await local('b.tif', Buffer.alloc(2 * 1024 * 1024, 2));
    const same = await Promise.all([store.put(a.file, a.sha256, 'x/r.tif', never), store.put(a.file, a.sha256, 'x/r.tif', never)]);
    expect(same).toEqual(['x/r.tif', 'x/r.tif']);
    const names = await Promise.all([store.put(b.file, b.sha256, 'y/r.tif', never), store.put(a.file, a.sha256, 'y/r.tif', never)]);
    expect(names.sort()).toEqual(['y/r.tif', 'y/r_1.tif']);
    expect(await listing()).toEqual(['x/r.tif', 'y/r.tif', 'y/r_1.tif']);
    const bytes = await Promise.all(names.map(async (n) => sha(await readFile(path.join(shareDir, n)))));
    expect(bytes.sort()).toEqual([a.sha256, b.sha256].sort());
  });

  it('copies a file with a long name (its temporary name stays within 255 characters)', async () => {
    const { file, sha256 } = await local('a.tif', 'raster');
    const long = `${'n'.repeat(240)}.tif`;
    expect(await store.put(file, sha256, `x/${long}`, never)).toBe(`x/${long}`);
  });

  it('refuses a copy whose bytes are not the sha256 given (the file changed during the copy): nothing published, no .part left', async () => {
    const { file } = await local('a.tif', 'the bytes on disk');
    const claimed = sha('the bytes when it was hashed');
    await expect(store.put(file, claimed, 'x/a.tif', never)).rejects.toMatchObject({
      kind: 'io',
      message: expect.stringMatching(new RegExp(`has sha256 ${sha('the bytes on disk')}, not ${claimed}.*Nothing was published`)),
    });
    expect(await listing()).toEqual([]);
  });

  it('does not reuse a symbolic link at the name, even to the same bytes outside the share', async () => {
    const { file, sha256 } = await local('a.tif', 'same bytes');
    await mkdir(path.join(shareDir, 'x'));
    await symlink(file, path.join(shareDir, 'x', 'a.tif'));
    expect(await store.put(file, sha256, 'x/a.tif', never)).toBe('x/a_1.tif');
  });

  it('removes the .part of a crashed copy (older than a day) and keeps a teammate\'s copy in flight', async () => {
    await mkdir(path.join(shareDir, 'x'));
    const crashed = path.join(shareDir, 'x', '.a.tif.0123456789ab.part');
    const inFlight = path.join(shareDir, 'x', '.a.tif.ba9876543210.part');
    await writeFile(crashed, 'half a raster');
    await writeFile(inFlight, 'a teammate copying');
    const old = new Date(Date.now() - STALE_PART_MS - 60_000);
    await utimes(crashed, old, old);
    const { file, sha256 } = await local('a.tif', 'whole raster');
    expect(await store.put(file, sha256, 'x/a.tif', never)).toBe('x/a.tif');
    expect(await listing()).toEqual(['x/.a.tif.ba9876543210.part', 'x/a.tif']);
  });

  it('refuses hostile suggested paths and a folder that is a symbolic link out of the share, writing nothing outside', async () => {
    const { file, sha256 } = await local('a.tif', 'raster');
    for (const p of ['../a.tif', '/tmp/a.tif', 'C:/a.tif', 'a/../../a.tif', 'a\u0000.tif']) {
      await expect(store.put(file, sha256, p, never)).rejects.toMatchObject({ kind: 'validation', message: expect.stringMatching(/storage path .* is refused/) });
    }
    const outside = path.join(tmp, 'outside');
    await mkdir(outside);
    await symlink(outside, path.join(shareDir, 'evil'));
    await expect(store.put(file, sha256, 'evil/a.tif', never)).rejects.toThrow(/symbolic link leads outside the shared store/);
    expect(await readdir(outside)).toEqual([]);
    await expect(store.put(file, 'A'.repeat(64), 'a.tif', never)).rejects.toThrow(/64 lower-case hex/);
  });

  it('says the share is not reachable when it is not mounted, and names the folder', async () => {
    const { file, sha256 } = await local('a.tif', 'raster');
    const gone = new SharedStore({ root: path.join(tmp, 'not-mounted') });
    await expect(gone.put(file, sha256, 'a.tif', never)).rejects.toMatchObject({
      kind: 'io',
      message: expect.stringContaining(`The shared store ${path.join(tmp, 'not-mounted')} is not reachable (the share is not mounted`),
    });
    await writeFile(path.join(tmp, 'a-file'), '');
    await expect(new SharedStore({ root: path.join(tmp, 'a-file') }).put(file, sha256, 'a.tif', never)).rejects.toThrow(/is not a folder/);
    expect(() => new SharedStore({ root: 'relative/share' })).toThrow(/absolute/);
  });

  it('stops when aborted mid-copy and removes its .part', { skip: process.platform === 'win32' }, async () => {
    // A FIFO as the source: the copy has started and waits for bytes the test controls.
    const fifo = path.join(tmp, 'fifo.tif');
    execFileSync('mkfifo', [fifo]);
    const ctl = new AbortController();
    const putting = store.put(fifo, 'b'.repeat(64), 'x/a.tif', ctl.signal);
    const writer = await open(fifo, 'w');
    await writer.write(Buffer.alloc(64 * 1024, 1));
    await vi.waitFor(async () => {
      const parts = (await readdir(path.join(shareDir, 'x'))).filter((n) => n.endsWith('.part'));
      expect(parts).toHaveLength(1);
      expect((await stat(path.join(shareDir, 'x', parts[0]!))).size).toBeGreaterThan(0);
    });
    ctl.abort();
    // The read in flight returns at the end of the FIFO (a file on disk returns at once); the
    // copy then ends as aborted, not as a finished copy with the wrong sha256.
    await writer.close();
    await expect(putting).rejects.toMatchObject({ name: 'AbortError' });
    expect(await listing()).toEqual([]);
  });
});

describe('SharedStore.resolve: only paths inside the share', () => {
  it.each(['../secret.tif', '/etc/passwd', 'C:/Windows/win.ini', 'a/../../b.tif', 'a\\..\\..\\b.tif', 'a\u0000b.tif', ''])('refuses %j', async (p) => {
    await expect(store.resolve(p)).rejects.toMatchObject({ kind: 'validation', message: expect.stringMatching(/is refused/) });
  });

  it('refuses a file or folder link that leads outside the share, and accepts one that stays inside', async () => {
    const outside = path.join(tmp, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.tif'), 'secret');
    await symlink(path.join(outside, 'secret.tif'), path.join(shareDir, 'leak.tif'));
    await symlink(outside, path.join(shareDir, 'evil'));
    await expect(store.resolve('leak.tif')).rejects.toThrow(/symbolic link leads outside/);
    await expect(store.resolve('evil/secret.tif')).rejects.toThrow(/symbolic link leads outside/);
    await mkdir(path.join(shareDir, 'real'));
    await writeFile(path.join(shareDir, 'real', 'r.tif'), 'r');
    await symlink(path.join(shareDir, 'real'), path.join(shareDir, 'alias'));
    expect(await store.resolve('alias/r.tif')).toBe(path.join(await realpath(shareDir), 'real', 'r.tif'));
  });

  it('says which file is missing', async () => {
    await expect(store.resolve('nope/r.tif')).rejects.toMatchObject({ kind: 'io', message: expect.stringContaining('nope/r.tif is not in the shared store') });
    await expect(store.resolve('r.tif')).rejects.toThrow(/no such file/);
    await mkdir(path.join(shareDir, 'folder'));
    await expect(store.resolve('folder')).rejects.toThrow(/folder in the shared store .* is not a file/);
  });
});

describe('SharedStore.readUrl', () => {
  it('encodes each segment under the base', () => {
    expect(store.readUrl('alice/my file #1.tif', 'https://rasters.example.org/team')).toBe('https://rasters.example.org/team/alice/my%20file%20%231.tif');
    expect(store.readUrl('a/%41.tif', 'https://rasters.example.org/')).toBe('https://rasters.example.org/a/%2541.tif');
    expect(store.readUrl('a.tif', 'http://127.0.0.1:8080/share/')).toBe('http://127.0.0.1:8080/share/a.tif');
  });

  it('refuses a hostile path and a base that is not https, carries credentials, a query or a fragment', () => {
    expect(() => store.readUrl('../a.tif', 'https://h/')).toThrow(/is refused/);
    expect(() => store.readUrl('a.tif', 'http://rasters.example.org/')).toThrow(/must use https/);
    expect(() => store.readUrl('a.tif', 'https://u:p@rasters.example.org/')).toThrow(/user name or password/);
    expect(() => store.readUrl('a.tif', 'https://rasters.example.org/?x=1')).toThrow(/query or a fragment/);
    expect(() => store.readUrl('a.tif', 'not a url')).toThrow(/not a URL/);
  });
});
