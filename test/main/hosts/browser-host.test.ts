import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBrowserHost, type BrowserHost } from '../../../main/hosts/browser-host';
import type { HandlerTable } from '../../../main/ipc';
import { channelNames } from '../../../preload/contract';
import { SecretRegistry } from '../../../main/platform/secrets';

// The WebSocket transport's cancel message, with a handler that runs until its signal aborts.

describe('browser host: cancel over the WebSocket', () => {
  let dir: string;
  let host: BrowserHost;
  const aborted: string[] = [];
  const started: string[] = [];
  const handlers = {
    ...(Object.fromEntries(channelNames.map((c) => [c, async () => { throw new Error(`unexpected call to ${c}`); }])) as unknown as HandlerTable),
    'imagery:search': ({ request }, { signal }) => new Promise((_resolve, reject) => {
      const name = String((request as { From?: string }).From);
      started.push(name);
      signal.addEventListener('abort', () => {
        aborted.push(name);
        reject(signal.reason);
      }, { once: true });
    }),
  } satisfies HandlerTable;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-bh-cancel-'));
    host = await startBrowserHost({ rendererDir: dir, handlers, secrets: new SecretRegistry() });
  });
  afterAll(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A connected page: sends calls and cancels, collects answers by id. */
  async function page() {
    const ws = new WebSocket(`${host.origin.replace('http', 'ws')}/__swath/ws?token=${host.token}`, { origin: host.origin });
    const answers = new Map<number, (result: unknown) => void>();
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw));
      answers.get(msg.id)?.(msg.result);
    });
    await new Promise((resolve) => ws.once('open', resolve));
    return {
      ws,
      search(id: number, from: string, callId: unknown): Promise<unknown> {
        return new Promise((resolve) => {
          answers.set(id, resolve);
          ws.send(JSON.stringify({ id, channel: 'imagery:search', payload: { request: { From: from } }, options: { callId } }));
        });
      },
      cancel(message: unknown): void {
        ws.send(JSON.stringify({ cancel: message }));
      },
    };
  }

  it('a page cancels its own call; another connection naming the same id cannot', async () => {
    const a = await page();
    const b = await page();
    const fromA = a.search(1, 'a', 9);
    void b.search(1, 'b', 9);
    await expect.poll(() => started.length).toBe(2);
    b.cancel({ callId: 10 });
    b.cancel({ callId: '9' });
    b.cancel({ callId: 9, sender: 'a' });
    a.cancel({ callId: 9 });
    await expect(fromA).resolves.toEqual({ ok: false, error: { kind: 'cancelled', message: 'The operation was cancelled.' } });
    expect(aborted).toEqual(['a']);
    // B's call still runs; closing B's socket aborts it.
    b.ws.close();
    await expect.poll(() => aborted).toEqual(['a', 'b']);
    const bad = await a.search(2, 'c', 'nine');
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation' } });
    a.ws.close();
  });
});
