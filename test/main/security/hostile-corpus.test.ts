import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_INPUTS, type Surface } from '../../fixtures/hostile/manifest';
import { fixturePath } from '../../fixtures/rasters';
import { feed, mismatch, observedDemoService, type DemoService } from './corpus.js';
import { startTestApp, type TestApp } from './helpers.js';

// The hostile-input corpus. Every input of test/fixtures/hostile/manifest.ts goes through
// the real path (library import and preview over IPC, the demo service in its own process over
// HTTP, spec discovery, the download file-name rule) and must get the answer the manifest names;
// what the library held before is still there afterwards. Memory budgets are measured by the bench.

describe('the hostile-input corpus', () => {
  let a: TestApp;
  let demo: DemoService;
  let dir: string;
  let kept: { id: string; path: string };
  beforeAll(async () => {
    const service = observedDemoService();
    demo = service.demo;
    a = await startTestApp({ startSimulator: service.start });
    dir = path.join(a.dir, 'hostile');
    mkdirSync(dir);
    const good = path.join(dir, 'good.tif');
    copyFileSync(fixturePath('utm33n-cog'), good);
    kept = (await a.call('library:import', { paths: [good] })).data.entries[0];
  });
  afterAll(() => a?.close());

  it('lists every kind of hostile input', () => {
    const ids = (s: Surface) => HOSTILE_INPUTS.filter((i) => i.surface === s).map((i) => i.id);
    expect(ids('tiff')).toEqual(expect.arrayContaining(['tiff-huge-dimensions', 'tiff-65535-samples', 'tiff-deflate-bomb', 'tiff-offsets-past-eof', 'tiff-truncated', 'tiff-big-endian', 'tiff-cyclic-ifd', 'tiff-zero-size-tiles']));
    expect(ids('aoi')).toEqual(expect.arrayContaining(['aoi-100k-vertices', 'aoi-nan', 'aoi-infinity', 'aoi-unclosed-ring', 'aoi-sliver-huge-box', 'aoi-10mb-json']));
    expect(ids('spec')).toEqual(expect.arrayContaining(['spec-hostile-pattern', 'spec-ref-chain-doubling', 'spec-ref-chain-deep']));
    expect(ids('download-name')).toEqual(expect.arrayContaining(['name-traversal', 'name-reserved-con', 'name-bidi-override', 'name-10kb']));
    // Every committed input file is in the manifest.
    const files = ['aois', 'specs'].flatMap((d) => readdirSync(path.join(import.meta.dirname, '../../fixtures/hostile', d)).map((f) => `${d}/${f}`));
    for (const f of files) expect(HOSTILE_INPUTS.some((i) => i.source === f), f).toBe(true);
    expect(new Set(HOSTILE_INPUTS.map((i) => i.id)).size).toBe(HOSTILE_INPUTS.length);
  });

  it.each(HOSTILE_INPUTS.map((i) => [i.id, i] as const))('%s gets its answer, and the library keeps what it had', async (_id, input) => {
    const result = await feed(input, { app: a, demo, dir });
    expect(mismatch(input.answer, result.answer)).toBeNull();
    if (input.preview) expect(mismatch(input.preview, result.preview)).toBeNull();
    // Names of the problem never carry the demo key.
    expect(JSON.stringify(result)).not.toContain(demo.key);
    const entries = (await a.call('library:query', { limit: 500 })).data.entries as { id: string; path: string }[];
    expect(entries).toContainEqual(expect.objectContaining({ id: kept.id, path: kept.path }));
  });
});
