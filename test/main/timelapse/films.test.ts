import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SwathApp } from '../../../main/app/app';
import { createDispatcher, type Dispatcher } from '../../../main/ipc';
import { MemoryKeychainBackend } from '../../../main/profiles';
import { FILM_CHUNK_BYTES } from '../../../preload/contract';
import { startSimulator } from '../../../simulator';

// The timelapse channels through the dispatcher, as the renderer reaches them: films made by ffmpeg
// arrive in chunks, are checked to be the container they claim, and land in the download folder's
// exports/ under a name that says what they are, never over an existing file.

const SENDER = 'app://swath/index.html';
const HAS_FFMPEG = spawnSync('ffmpeg', ['-version']).status === 0;
if (!HAS_FFMPEG) console.warn('ffmpeg not found: the timelapse channel tests are skipped (apt-get install ffmpeg).');

/** A 2-second test film of `format`, encoded by ffmpeg. */
function film(dir: string, format: 'webm' | 'mp4' | 'gif'): Buffer {
  const out = path.join(dir, `probe.${format}`);
  const codec = format === 'webm' ? ['-c:v', 'libvpx-vp9'] : format === 'mp4' ? ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'] : [];
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=5:duration=2', ...codec, out]);
  return readFileSync(out);
}

describe.skipIf(!HAS_FFMPEG)('timelapse channels', () => {
  let dir: string;
  let app: SwathApp;
  let d: Dispatcher;
  const call = async (channel: string, payload: unknown = {}) => d.dispatch(channel, payload, SENDER) as Promise<any>;
  const exportsDir = () => path.join(dir, 'Downloads', 'exports');
  const name = { area: 'aoi-13.400E52.503N', index: 'ndvi', first: '2026-04-10', last: '2026-08-20', fps: 4 };

  /** Sends `bytes` as a film in chunks of `chunk` bytes; answers finish's result. */
  async function send(format: 'webm' | 'mp4' | 'gif', bytes: Buffer, chunk = 1000) {
    const begun = await call('timelapse:begin', { format, bytes: bytes.length, ...name });
    expect(begun.ok, JSON.stringify(begun.error)).toBe(true);
    const id = begun.data.id as string;
    for (let at = 0; at < bytes.length; at += chunk) {
      const r = await call('timelapse:chunk', { id, offset: at, data: bytes.subarray(at, at + chunk).toString('base64') });
      expect(r.ok, JSON.stringify(r.error)).toBe(true);
      expect(r.data.received).toBe(Math.min(bytes.length, at + chunk));
    }
    return call('timelapse:finish', { id });
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-timelapse-'));
    app = await createApp({
      userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), version: '0.0.0', platform: 'linux', startSimulator,
      emit: () => undefined, keychainBackend: new MemoryKeychainBackend(),
    });
    d = createDispatcher(app.handlers, { isAllowedSender: (u) => u === SENDER, secrets: app.secrets });
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['webm', 'mp4', 'gif'] as const)('writes a %s film in chunks under exports/ with a name that says what it is', async (format) => {
    const bytes = film(dir, format);
    const done = await send(format, bytes);
    expect(done.ok, JSON.stringify(done.error)).toBe(true);
    expect(done.data.file).toBe(path.join(exportsDir(), `swath-timelapse-aoi-13.400E52.503N-ndvi-2026-04-10_2026-08-20-4fps.${format}`));
    expect(done.data.bytes).toBe(bytes.length);
    expect(readFileSync(done.data.file).equals(bytes)).toBe(true);
  });

  it('never writes over an earlier film of the same name, and leaves no part file', async () => {
    const first = path.join(exportsDir(), 'swath-timelapse-aoi-13.400E52.503N-ndvi-2026-04-10_2026-08-20-4fps.gif');
    const before = readFileSync(first);
    const bytes = film(dir, 'gif');
    const done = await send('gif', Buffer.concat([bytes.subarray(0, bytes.length - 1), Buffer.from([0x3b])]));
    expect(done.data.file).toBe(first.replace(/\.gif$/, '-2.gif'));
    expect(readFileSync(first).equals(before)).toBe(true);
    expect(readdirSync(exportsDir()).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it.each([
    ['webm', 'gif', 'a WebM starts with the EBML header (1A 45 DF A3)'],
    ['mp4', 'webm', 'an MP4 starts with an "ftyp" box'],
    ['gif', 'mp4', 'a GIF starts with "GIF89a"'],
  ] as const)('refuses bytes claimed to be %s that are a %s, writing nothing', async (claimed, real, why) => {
    const files = readdirSync(exportsDir()).length;
    const done = await send(claimed, film(dir, real));
    expect(done.ok).toBe(false);
    expect(done.error.kind).toBe('validation');
    expect(done.error.message).toBe(`format: these bytes are not a ${claimed.toUpperCase()} film (${why}).`);
    expect(readdirSync(exportsDir())).toHaveLength(files);
  });

  it('refuses chunks out of order, past the declared size, too large, or an unfinished film', async () => {
    const bytes = film(dir, 'webm');
    const begun = await call('timelapse:begin', { format: 'webm', bytes: bytes.length, ...name });
    const id = begun.data.id as string;
    const skip = await call('timelapse:chunk', { id, offset: 10, data: bytes.subarray(0, 10).toString('base64') });
    expect(skip).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringContaining('offset: expected 0, got 10') } });
    await call('timelapse:chunk', { id, offset: 0, data: bytes.subarray(0, 10).toString('base64') });
    const early = await call('timelapse:finish', { id });
    expect(early.error.message).toContain(`The film is incomplete: 10 of ${bytes.length} bytes arrived.`);
    expect(readdirSync(exportsDir()).filter((f) => f.endsWith('.part'))).toEqual([]);

    const again = await call('timelapse:begin', { format: 'webm', bytes: 20, ...name });
    const over = await call('timelapse:chunk', { id: again.data.id, offset: 0, data: bytes.subarray(0, 30).toString('base64') });
    expect(over.error.message).toContain('more than the 20 bytes declared');
    expect((await call('timelapse:chunk', { id: again.data.id, offset: 0, data: 'AAAA' })).error.kind).toBe('not-found');

    const big = await call('timelapse:chunk', { id, offset: 0, data: 'A'.repeat(Math.ceil(FILM_CHUNK_BYTES / 3) * 4 + 4) });
    expect(big).toMatchObject({ ok: false, error: { kind: 'validation', fields: { data: [expect.stringContaining('At most')] } } });
    const badName = await call('timelapse:begin', { format: 'gif', bytes: 10, ...name, area: '../../etc' });
    expect(badName).toMatchObject({ ok: false, error: { kind: 'validation', fields: { area: [expect.stringContaining('letters, digits')] } } });
    expect((await call('timelapse:begin', { format: 'gif', bytes: 10, ...name, first: '2026-09-01' })).error.message).toContain('first: the first date is after the last');
    expect(existsSync(path.join(exportsDir(), '..', 'etc'))).toBe(false);
  });

  it('cancels a film: its part file goes', async () => {
    const begun = await call('timelapse:begin', { format: 'gif', bytes: 100, ...name });
    await call('timelapse:chunk', { id: begun.data.id, offset: 0, data: Buffer.from('GIF89a').toString('base64') });
    expect(readdirSync(exportsDir()).some((f) => f.endsWith('.part'))).toBe(true);
    expect((await call('timelapse:abort', { id: begun.data.id })).data).toEqual({ aborted: true });
    expect(readdirSync(exportsDir()).filter((f) => f.endsWith('.part'))).toEqual([]);
    expect((await call('timelapse:abort', { id: begun.data.id })).data).toEqual({ aborted: false });
  });
});
