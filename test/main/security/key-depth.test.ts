import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_REDACTION_DEPTH, MAX_SEALED_DEPTH, redactServiceData } from '../../../main/api/redact';
import { SecretRegistry } from '../../../main/platform/secrets';
import { createDispatcher } from '../../../main/ipc';
import type { ChannelMap } from '../../../preload/contract';
import { SENDER, startRecorder, startTestApp, type Recorder, type TestApp } from './helpers.js';

// Key masking has no depth hole a hostile answer can use.

const SECRET = 'sk-live-DEPTH-HOLE-SECRET-9d1e';

// The service's own specification: account info answers an object, nothing more is declared.
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Deep service', version: '1.0.0' },
  paths: {
    '/api/account/info': { get: { responses: { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'object', properties: { Data: { type: 'object' }, Succeeded: { type: 'boolean' } } } } } } } } },
  },
};

/** The JSON text of {@link nested} (built as text: a 10 000-deep value is too deep for JSON.stringify's stack). */
function nestedJson(depth: number, inner: string): string {
  return `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;
}

/** `inner` wrapped in `depth` objects, so it sits at that nesting depth of the answer's Data. */
function nested(depth: number, inner: unknown): unknown {
  let v = inner;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('an account-info answer that nests the key deep', () => {
  let depth = 0;
  let service: Recorder;
  let t: TestApp;
  beforeAll(async () => {
    service = await startRecorder((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.endsWith('/api/specification.json')) { res.end(JSON.stringify(SPEC)); return; }
      // Echo is not a key-like name: only the value tells it is the key.
      res.end(`{"Succeeded":true,"Data":${nestedJson(depth, JSON.stringify({ Echo: SECRET, Key: SECRET }))}}`);
    });
    t = await startTestApp();
    const id = (await t.call('profiles:create', { name: 'Hostile', baseUrl: service.url, key: SECRET })).data.id;
    await t.call('profiles:activate', { id });
  });
  afterAll(async () => {
    await t.close();
    await service.close();
  });

  it('at depth 65 (the reproduction) is refused as too deep, and the key does not reach the renderer', async () => {
    depth = MAX_REDACTION_DEPTH + 1;
    expect(depth).toBe(65);
    const res = await t.call('account:info');
    expect(res).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringMatching(/too deep/) } });
    expect(JSON.stringify(res)).not.toContain(SECRET);
    expect(t.logs.join('\n')).not.toContain(SECRET);
  });

  it('far deeper (10 000 levels) is refused the same way, without a stack overflow', async () => {
    depth = 10_000;
    const res = await t.call('account:info');
    expect(res).toMatchObject({ ok: false, error: { message: expect.stringMatching(/too deep/) } });
    expect(JSON.stringify(res)).not.toContain(SECRET);
  });

  it('at the limit (depth 64) is answered, with the key masked by value and by name', async () => {
    depth = MAX_REDACTION_DEPTH;
    const res = await t.call('account:info');
    expect(res, JSON.stringify(res).slice(0, 300)).toMatchObject({ ok: true });
    const text = JSON.stringify(res);
    expect(text).not.toContain(SECRET);
    expect(text).toContain('9d1e');
  });
});

describe('the dispatcher, last line of defence', () => {
  const KEY = 'sk-live-SEALED-RESULT-SECRET-77aa';
  const secrets = new SecretRegistry();
  secrets.add(KEY);
  const contract = {
    'x:get': { request: z.strictObject({}), response: z.unknown() },
  } satisfies ChannelMap;

  it('checks the serialised result for every registered key: a value the masking walk does not enter is refused', async () => {
    // A class instance is not walked by the masking, but JSON (and structured clone) would carry its fields.
    class Holder { constructor(readonly note: string) {} }
    const d = createDispatcher({ 'x:get': () => new Holder(`key ${KEY}`) }, { contract, isAllowedSender: (u) => u === SENDER, secrets });
    const res = await d.dispatch('x:get', {}, SENDER);
    expect(res).toMatchObject({ ok: false, error: { kind: 'io', message: expect.stringMatching(/still held an API key/) } });
    expect(JSON.stringify(res)).not.toContain(KEY);
  });

  it('refuses a handler result nested deeper than the limit', async () => {
    const deep = createDispatcher({ 'x:get': () => nested(MAX_SEALED_DEPTH + 1, { v: KEY }) }, { contract, isAllowedSender: (u) => u === SENDER, secrets });
    const res = await deep.dispatch('x:get', {}, SENDER);
    expect(res).toMatchObject({ ok: false, error: { kind: 'io', message: expect.stringMatching(/too deep/) } });
    expect(JSON.stringify(res)).not.toContain(KEY);
  });

  it('redactServiceData refuses rather than returning a half-walked value', () => {
    expect(() => redactServiceData(nested(65, { Echo: KEY }), secrets)).toThrow(/too deep/);
    expect(JSON.stringify(redactServiceData(nested(64, { Echo: KEY }), secrets))).not.toContain(KEY);
  });
});
