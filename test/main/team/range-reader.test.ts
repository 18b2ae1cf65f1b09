import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveLibraryFile } from '../../../main/library/raster-protocol';
import { RangeReader, TeamReadUrl } from '../../../main/team/range-reader';
import { startRangeServer, type RangeServer } from '../../support/range-server';

// The team's read URL as a hostile network could answer it: a real https static server with Range
// support (a throwaway self-signed certificate made by openssl) over a share folder, told to misbehave.

const SIZE = 300_000;
const bytes = randomBytes(SIZE);
const sha256 = createHash('sha256').update(bytes).digest('hex');
const REL = 'composite/2026/a b#1.tif';

async function read(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('team read URL: ranges over https', () => {
  let root: string;
  let server: RangeServer;
  let reader: TeamReadUrl;
  const signal = () => new AbortController().signal;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'swath-readurl-'));
    mkdirSync(path.join(root, 'composite', '2026'), { recursive: true });
    writeFileSync(path.join(root, ...REL.split('/')), bytes);
    server = await startRangeServer(root, { tls: true });
    reader = new TeamReadUrl(server.url, new RangeReader({ caPem: server.certPem, timeoutMs: 5_000 }));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('reads exactly the bytes asked for, with no credentials in the request (only Range)', async () => {
    server.behaviour = 'good';
    server.requests.length = 0;
    expect(await read(await reader.open(REL, 1000, 70_999, SIZE, signal()))).toEqual(bytes.subarray(1000, 71_000));
    expect(await read(await reader.open(REL, SIZE - 1, SIZE - 1, SIZE, signal()))).toEqual(bytes.subarray(SIZE - 1));
    expect(server.requests.map((r) => r.url)).toEqual(['/composite/2026/a%20b%231.tif', '/composite/2026/a%20b%231.tif']);
    const headers = server.requests[0]!.headers;
    expect(headers.range).toBe('bytes=1000-70999');
    expect(headers.authorization).toBeUndefined();
    expect(headers.cookie).toBeUndefined();
    expect(Object.keys(headers).filter((h) => !['host', 'connection', 'range', 'accept-encoding'].includes(h))).toEqual([]);
  });

  it('checks the certificate: a server whose certificate is not trusted is refused', async () => {
    server.behaviour = 'good';
    const untrusting = new TeamReadUrl(server.url, new RangeReader({ timeoutMs: 5_000 }));
    await expect(untrusting.open(REL, 0, 9, SIZE, signal())).rejects.toThrow(/could not be used: self[- ]signed certificate/);
  });

  it('refuses a server that ignores Range and sends the whole file with 200', async () => {
    server.behaviour = 'ignore-range';
    await expect(reader.open(REL, 0, 9, SIZE, signal())).rejects.toThrow(/ignored the Range request and answered with the whole file \(HTTP 200\)/);
  });

  it('refuses a 206 whose Content-Range is not the range asked for', async () => {
    server.behaviour = 'wrong-range';
    await expect(reader.open(REL, 100, 199, SIZE, signal())).rejects.toThrow(/answered the range "bytes 101-199\/300000", not the "bytes 100-199\/300000" asked for/);
  });

  it('refuses a file whose size differs from the catalog row\'s (the Content-Range names another size)', async () => {
    server.behaviour = 'good';
    await expect(reader.open(REL, 0, 9, SIZE + 1, signal())).rejects.toThrow(/not the "bytes 0-9\/300001" asked for/);
  });

  it('refuses a body longer than the range asked for', async () => {
    server.behaviour = 'too-long';
    const body = await reader.open(REL, 0, 99, SIZE, signal());
    await expect(read(body)).rejects.toThrow(/sent more than the 100 bytes asked for/);
  });

  it('refuses a redirect to another origin, sending nothing there; follows one within the same origin', async () => {
    const other = await startRangeServer(root);
    try {
      server.behaviour = 'redirect-other';
      server.redirectTo = other.url;
      await expect(reader.open(REL, 0, 9, SIZE, signal())).rejects.toThrow(/redirected to another origin \(http:\/\/127\.0\.0\.1:\d+\); nothing was sent there/);
      expect(other.requests).toEqual([]);
      server.behaviour = 'redirect-same';
      expect(await read(await reader.open(REL, 0, 9, SIZE, signal()))).toEqual(bytes.subarray(0, 10));
    } finally {
      await other.close();
    }
  });

  it('is cancelled by the caller\'s signal mid-body, and the server sees the request go away', async () => {
    server.behaviour = 'stall';
    server.abandoned = 0;
    const controller = new AbortController();
    const body = await reader.open(REL, 0, 99, SIZE, controller.signal);
    const reading = read(body);
    controller.abort();
    await expect(reading).rejects.toThrow(/abort/i);
    await expect.poll(() => server.abandoned).toBe(1);
  });

  it('a server that stops sending mid-body fails after the timeout instead of hanging', async () => {
    server.behaviour = 'stall';
    const quick = new TeamReadUrl(server.url, new RangeReader({ caPem: server.certPem, timeoutMs: 200 }));
    await expect(read(await quick.open(REL, 0, 99, SIZE, signal()))).rejects.toThrow(/stopped sending for/);
  });

  it('downloads the whole file to .part, checks its sha256 against the catalog\'s and renames it; a wrong sha256 leaves nothing', async () => {
    server.behaviour = 'good';
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-readurl-dl-'));
    try {
      await reader.download(REL, SIZE, sha256, path.join(dir, 'a.tif'), signal());
      expect(readFileSync(path.join(dir, 'a.tif'))).toEqual(bytes);
      await expect(reader.download(REL, SIZE, 'f'.repeat(64), path.join(dir, 'b.tif'), signal())).rejects.toThrow(/has sha256 [0-9a-f]{64}, not the f+ the team catalog registered; it was not used/);
      expect(readdirSync(dir)).toEqual(['a.tif']);
      expect(existsSync(path.join(dir, 'b.tif.part'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a copy the disk cannot hold by the catalog row\'s size (a hostile row) before asking the server for anything', async () => {
    server.behaviour = 'good';
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-readurl-big-'));
    try {
      const before = server.requests.length;
      await expect(reader.download(REL, 2 ** 52, sha256, path.join(dir, 'huge.tif'), signal())).rejects.toThrow(/is 4503599627370496 bytes by the team catalog, but .* has \d+ bytes free .*: it was not copied/);
      expect(server.requests.length).toBe(before);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a read URL that is plain http off loopback', () => {
    expect(() => new TeamReadUrl('http://share.example.org/rasters/', new RangeReader())).toThrow(/must use https/);
  });

  it('the raster protocol serves a remote raster by range, and answers 502 naming the reason when the server misbehaves', async () => {
    const remote = {
      size: SIZE,
      open: async (start: number, end: number, s: AbortSignal) => (await import('node:stream')).Readable.toWeb(await reader.open(REL, start, end, SIZE, s)) as unknown as ReadableStream<Uint8Array>,
    };
    const lookup = { get: (id: string) => (id === 'team-7' ? { path: server.url, remote } : undefined) };
    server.behaviour = 'good';
    const ok = await serveLibraryFile(lookup, 'swath-raster://team-7', { range: 'bytes=10-19' });
    expect(ok.status).toBe(206);
    expect(ok.headers['Content-Range']).toBe(`bytes 10-19/${SIZE}`);
    expect(Buffer.from(await new Response(ok.body).arrayBuffer())).toEqual(bytes.subarray(10, 20));
    server.behaviour = 'ignore-range';
    const bad = await serveLibraryFile(lookup, 'swath-raster://team-7', { range: 'bytes=10-19' });
    expect(bad.status).toBe(502);
    expect(await text(bad.body as never)).toMatch(/ignored the Range request/);
  });
});
