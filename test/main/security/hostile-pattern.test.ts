import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PATTERN_INPUT, patternRisk, safePatternEngine } from '../../../main/api/safe-pattern';
import { SMALL_AOI, startTestSim, type TestSim } from '../../simulator/helpers.js';
import { makeClient, startDoctoringProxy, type TestClient } from '../api/helpers.js';

// A hostile `pattern` in the remote specification cannot freeze main (ReDoS).

const CATASTROPHIC = '^(a+)+$';

describe('pattern safety check', () => {
  it('refuses the shapes that backtrack catastrophically', () => {
    for (const p of [CATASTROPHIC, '(a|aa)*b', '^(\\w+\\s?)*$', '(x+x+)+y', '^(a?){30}a{30}$', '(.*a){12}', '^(\\d+)*$', '(a)\\1', '\\d+\\d+\\d+\\d+x', 'a{1,100000}', 'x'.repeat(600)]) {
      expect(patternRisk(p), p).not.toBeNull();
    }
  });

  it('keeps ordinary patterns', () => {
    for (const p of ['^[A-Z]{2}-\\d+$', '^\\d{4}-\\d{2}-\\d{2}$', '^SWATH-[A-Z0-9]+$', '^[^@]+@[^@]+$', '^(\\+|-)?\\d+$', '^EPSG:\\d{4,5}$', '^[a-f0-9]{8}(-[a-f0-9]{4}){3}-[a-f0-9]{12}$', '\\p{L}+', '[(+*)]+']) {
      expect(patternRisk(p), p).toBeNull();
    }
  });

  it('the engine applies safe patterns, accepts anything for a refused one, and says so once', () => {
    const notices: string[] = [];
    const engine = safePatternEngine((m) => notices.push(m));
    expect(engine('^[A-Z]{2}$', 'u').test('AB')).toBe(true);
    expect(engine('^[A-Z]{2}$', 'u').test('ABC')).toBe(false);
    const hostile = engine(CATASTROPHIC, 'u');
    // Against the real RegExp this input takes about 2^60 steps.
    expect(hostile.test(`${'a'.repeat(60)}!`)).toBe(true);
    engine(CATASTROPHIC, 'u');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/does not check \(a repeated group itself contains a repetition.*\^\(a\+\)\+\$.*service still validates/);
    // Values longer than the bound are left to the service (polynomial patterns stay bounded).
    expect(engine('^[^@]+@[^@]+$', 'u').test('a'.repeat(MAX_PATTERN_INPUT + 1))).toBe(true);
  });
});

describe('a specification with a catastrophic pattern', () => {
  let t: TestSim;
  let proxy: { url: string; close(): Promise<void> };
  let c: TestClient;
  beforeAll(async () => {
    t = await startTestSim();
    proxy = await startDoctoringProxy(t.url, (spec) => {
      const op = spec.paths['/api/tasking/search/tiles'].post;
      const ref: string | undefined = op.requestBody.content['application/json'].schema.$ref;
      const schema = ref ? spec.components.schemas[ref.split('/').at(-1)!] : op.requestBody.content['application/json'].schema;
      schema.properties.Wkt = { ...schema.properties.Wkt, pattern: CATASTROPHIC };
    });
    c = makeClient(proxy.url);
    await c.client.connect();
  });
  afterAll(async () => {
    await c.close();
    await proxy.close();
    await t.close();
  });

  it('checks a long hostile value without applying the pattern, and names the problem in the log', async () => {
    // 4000 x "a" then "!": the pattern alone would run for longer than the universe has existed.
    const e = await c.client.callOpen('tasking.searchTiles', { body: { Wkt: `${'a'.repeat(4000)}!` } }).then(
      () => ({ kind: 'none' } as { kind: string; fields?: Record<string, string[]> }),
      (x: unknown) => x as { kind: string; fields?: Record<string, string[]> },
    );
    // The service (not the pattern) refuses the WKT.
    expect(e).toMatchObject({ kind: 'validation' });
    expect(e.fields?.Wkt?.[0]).toBeDefined();
    expect(c.logs.some((l) => /pattern Swath does not check/.test(l))).toBe(true);
    const ok: any = await c.client.callOpen('tasking.searchTiles', { body: { Wkt: SMALL_AOI } });
    expect(ok.Tiles.length).toBeGreaterThan(0);
  });
});
