import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { contentDispositionFileName } from '../../../main/api/index.js';
import { sanitizeFileName } from '../../../main/downloads/index.js';
import { forkedSimulator } from '../../../main/hosts/simulator-process.js';
import type { StartSimulator } from '../../../main/app/embedded-service.js';
import type { Answer, HostileInput } from '../../fixtures/hostile/manifest.js';
import { makeClient, sendEnvelope, startScriptServer } from '../api/helpers.js';
import { postBytes } from '../../simulator/helpers.js';
import type { TestApp } from './helpers.js';

/**
 * Feeds the hostile corpus (test/fixtures/hostile/manifest.ts) through the real paths of main: the
 * library over IPC (import, then preview), the embedded demo service in its own process over
 * loopback HTTP, the API client's spec discovery, the download file-name rule. Shared by the
 * corpus test (which asserts the answers) and the hostile benchmark (which measures main meanwhile).
 */

/** The embedded demo service as main started it: its URL and this run's key, seen by the test only. */
export interface DemoService {
  url: string;
  key: string;
}

/** The demo service in its own child process (as the browser host runs it); `demo` is filled once it runs. */
export function observedDemoService(): { start: StartSimulator; demo: DemoService } {
  const demo: DemoService = { url: '', key: '' };
  const inChild = forkedSimulator();
  return {
    demo,
    start: async (opts) => {
      demo.key = Object.keys(opts.apiKeys ?? {})[0] ?? '';
      const sim = await inChild(opts);
      demo.url = sim.url;
      return sim;
    },
  };
}

/** What an input got, in the terms of {@link Answer}. */
export type Outcome =
  | { kind: 'error'; error: string; message: string }
  | { kind: 'service-error'; status: number; code: number; message: string }
  | { kind: 'accepted'; logs: string[] }
  | { kind: 'renamed'; to: string };

/** What `input` gets (and, for a TIFF accepted by import, what its preview gets). */
export interface Result {
  answer: Outcome;
  preview?: Outcome;
}

const ipcOutcome = (res: { ok: boolean; error?: { kind: string; message: string } }, logs: string[]): Outcome =>
  res.ok ? { kind: 'accepted', logs } : { kind: 'error', error: res.error!.kind, message: res.error!.message };

/** Where a TIFF input is written before import. */
export const tiffPath = (input: HostileInput, dir: string): string => path.join(dir, `${input.id}.tif`);

/**
 * Sends one input through its surface. `data`: the input already loaded, and `written`: TIFFs
 * already on disk at {@link tiffPath}, so a benchmark times only main's part.
 */
export async function feed(input: HostileInput, ctx: { app: TestApp; demo: DemoService; dir: string }, data: Buffer | string = input.load(), written = false): Promise<Result> {
  switch (input.surface) {
    case 'tiff': {
      const file = tiffPath(input, ctx.dir);
      if (!written) writeFileSync(file, data);
      const imported = await ctx.app.call('library:import', { paths: [file] });
      const answer = ipcOutcome(imported, []);
      if (!imported.ok || !input.preview) return { answer };
      const preview = ipcOutcome(await ctx.app.call('library:preview', { id: imported.data.entries[0].id }), []);
      return { answer, preview };
    }
    case 'aoi': {
      const res = await postBytes(`${ctx.demo.url}${input.operation}`, { 'content-type': 'application/json', 'x-api-key': ctx.demo.key }, typeof data === 'string' ? Buffer.from(data) : data);
      const json = JSON.parse(res.body) as { Succeeded: boolean; Error?: { Code: number; Message: string } | null; Data?: unknown };
      if (res.status < 300 && json.Succeeded) return { answer: { kind: 'accepted', logs: [] } };
      return { answer: { kind: 'service-error', status: res.status, code: json.Error?.Code ?? 0, message: `${json.Error?.Message ?? ''} ${JSON.stringify(json.Data ?? null)}` } };
    }
    case 'spec': {
      // A service whose specification is the input; it refuses every call as the real one refuses a bad AOI.
      const server = await startScriptServer((req, res) => {
        if (req.url === '/api/specification.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(data);
        sendEnvelope(res, 400, { Data: { Wkt: ['The service refuses this WKT.'] }, Succeeded: false, Error: { Message: 'One or more validation errors occurred.', Code: 992 } });
      });
      const c = makeClient(server.url, { cacheDir: path.join(ctx.dir, `spec-cache-${input.id}`) });
      try {
        // 4000 x "a" then "!": a catastrophic pattern applied to it would never return.
        await c.client.callOpen('tasking.searchTiles', { body: { Wkt: `${'a'.repeat(4000)}!` } });
        return { answer: { kind: 'accepted', logs: c.logs } };
      } catch (e) {
        const err = e as { kind: string; message: string };
        // The service's own refusal means the spec was read and the call went out.
        if (err.kind === 'validation' && server.requests.some((r) => r.url !== '/api/specification.json')) return { answer: { kind: 'accepted', logs: c.logs } };
        return { answer: { kind: 'error', error: err.kind, message: err.message } };
      } finally {
        await c.close();
        await server.close();
      }
    }
    case 'download-name':
      // As the transport and the download queue apply it to a response's Content-Disposition.
      return { answer: { kind: 'renamed', to: sanitizeFileName(contentDispositionFileName(String(data)), 'composite_20261101.tif') } };
  }
}

/** Null when `outcome` is the `expected` answer, else what differs. */
export function mismatch(expected: Answer, outcome: Outcome | undefined): string | null {
  if (!outcome) return 'no outcome';
  const got = JSON.stringify(outcome).slice(0, 600);
  if (expected.kind !== outcome.kind) return `expected ${expected.kind}, got ${got}`;
  if (expected.kind === 'error' && outcome.kind === 'error') {
    return expected.error === outcome.error && outcome.message.includes(expected.names) ? null : `expected ${expected.error} naming "${expected.names}", got ${got}`;
  }
  if (expected.kind === 'service-error' && outcome.kind === 'service-error') {
    return expected.status === outcome.status && expected.code === outcome.code && outcome.message.includes(expected.names) ? null : `expected ${expected.status}/${expected.code} naming "${expected.names}", got ${got}`;
  }
  if (expected.kind === 'accepted' && outcome.kind === 'accepted') {
    return !expected.notice || outcome.logs.some((l) => l.includes(expected.notice!)) ? null : `expected a notice naming "${expected.notice}", got ${got}`;
  }
  if (expected.kind === 'renamed' && outcome.kind === 'renamed') return expected.to === outcome.to ? null : `expected ${expected.to}, got ${got}`;
  return `unexpected ${got}`;
}
