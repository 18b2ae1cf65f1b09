import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ByteReader } from '../../main/shared/file-io.js';
import { READ_BYTES, sendBytes } from '../../simulator/send-bytes.js';

/** A reader over `data` that records the reads it was asked for. */
function memoryReader(data: Buffer, reads: number[] = []): ByteReader {
  return {
    bytes: data.length,
    read: async (into, position) => {
      reads.push(position);
      data.copy(into, 0, position, position + into.length);
    },
    close: async () => undefined,
  };
}

let server: http.Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

/** A loopback server answering every request with `send`'s body; resolves its URL and, per request, what sendBytes answered. */
async function serve(reader: ByteReader, limit: number): Promise<{ url: string; results: Promise<boolean>[] }> {
  const results: Promise<boolean>[] = [];
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Length': limit });
    const sent = sendBytes(res, reader, limit);
    results.push(sent);
    void sent.then((ok) => (ok ? res.end() : res.destroy()));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`, results };
}

const sha = (b: Buffer | Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('sendBytes', () => {
  it('sends the bytes in order through two buffers of reads, up to the limit', async () => {
    const data = randomBytes(2 * READ_BYTES + 12_345);
    const reads: number[] = [];
    const { url, results } = await serve(memoryReader(data, reads), data.length - 7);
    const body = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(body.length).toBe(data.length - 7);
    expect(sha(body)).toBe(sha(data.subarray(0, data.length - 7)));
    expect(await results[0]).toBe(true);
    expect(reads).toEqual([0, READ_BYTES, 2 * READ_BYTES]);
  });

  it('answers false, without waiting for the rest, when the client goes away', async () => {
    const data = randomBytes(16 * READ_BYTES);
    const { url, results } = await serve(memoryReader(data), data.length);
    const ac = new AbortController();
    const res = await fetch(url, { signal: ac.signal });
    const reader = res.body!.getReader();
    await reader.read();
    ac.abort();
    await expect.poll(() => results.length).toBe(1);
    expect(await results[0]).toBe(false);
  });

  it('an empty body is sent at once', async () => {
    const { url, results } = await serve(memoryReader(Buffer.alloc(0)), 0);
    expect((await (await fetch(url)).arrayBuffer()).byteLength).toBe(0);
    expect(await results[0]).toBe(true);
  });
});
