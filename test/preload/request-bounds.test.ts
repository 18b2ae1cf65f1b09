import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDispatcher, type HandlerTable } from '../../main/ipc';
import { SecretRegistry } from '../../main/platform/secrets';
import { JSON_LIMITS, MAX_LIST, MAX_PATH, MAX_SECRET, MAX_SELECTION, channelNames, channels, jsonProblem } from '../../preload/contract';

// Every request the renderer sends is bounded: each string, list and open JSON value in the
// contract's request schemas has an upper bound, and a request past one is refused before its
// handler runs, naming the field.

type Schema = z.core.$ZodType;
const def = (s: Schema) => (s as unknown as { _zod: { def: Record<string, any> } })._zod.def;
const hasMax = (s: Schema) => ((def(s).checks ?? []) as { _zod: { def: { check: string } } }[]).some((c) => ['max_length', 'length_equals'].includes(c._zod.def.check));
const jsonBounded = (s: Schema) => z.globalRegistry.get(s as z.ZodType)?.bounds === 'json';

/** The places in a request schema where a string, a list or an open value has no upper bound. */
function unbounded(s: Schema, path: string, out: string[], inside: readonly Schema[] = []): void {
  if (inside.includes(s) || jsonBounded(s)) return;
  const d = def(s);
  const within = [...inside, s];
  switch (d.type) {
    case 'string':
      if (!hasMax(s)) out.push(`${path}: string`);
      return;
    case 'array':
      if (!hasMax(s)) out.push(`${path}: list`);
      return unbounded(d.element, `${path}[]`, out, within);
    case 'record': case 'map': case 'set': case 'unknown': case 'any': case 'custom':
      out.push(`${path}: ${d.type}`);
      return;
    case 'object':
      for (const [key, value] of Object.entries(d.shape as Record<string, Schema>)) unbounded(value, `${path}.${key}`, out, within);
      if (d.catchall && def(d.catchall).type !== 'never') out.push(`${path}: open fields`);
      return;
    case 'union':
      return (d.options as Schema[]).forEach((o, i) => unbounded(o, `${path}|${i}`, out, within));
    case 'tuple':
      (d.items as Schema[]).forEach((o, i) => unbounded(o, `${path}[${i}]`, out, within));
      if (d.rest) unbounded(d.rest, `${path}[…]`, out, within);
      return;
    case 'optional': case 'nullable': case 'default': case 'prefault': case 'readonly': case 'nonoptional': case 'catch':
      return unbounded(d.innerType, path, out, within);
    case 'pipe':
      return unbounded(d.in, path, out, within);
    case 'lazy':
      return unbounded(d.getter(), path, out, within);
    case 'number': case 'boolean': case 'enum': case 'literal': case 'null': case 'undefined': case 'never': case 'nan': case 'int':
      return;
    default:
      out.push(`${path}: ${d.type} (not known to this test)`);
  }
}

describe('request bounds', () => {
  it('every string, list and open value of every request has an upper bound', () => {
    const out: string[] = [];
    for (const name of channelNames) unbounded(channels[name].request as Schema, name, out);
    expect(out).toEqual([]);
  });

  describe('through the dispatcher', () => {
    const called: string[] = [];
    const handlers = Object.fromEntries(channelNames.map((name) => [name, () => void called.push(name)])) as unknown as HandlerTable;
    const dispatcher = createDispatcher(handlers, { isAllowedSender: () => true, secrets: new SecretRegistry() });
    const send = (channel: string, payload: unknown) => dispatcher.dispatch(channel, payload, 'app://swath/index.html');
    const fieldsOf = async (channel: string, payload: unknown): Promise<Record<string, string[]>> => {
      const before = called.length;
      const r = await send(channel, payload);
      expect(r.ok, channel).toBe(false);
      expect(called.length, `${channel} reached its handler`).toBe(before);
      if (r.ok) throw new Error('unreachable');
      expect(r.error.kind).toBe('validation');
      return r.error.fields ?? {};
    };
    const AREA = 'POLYGON((13.4 52.5, 13.43 52.5, 13.43 52.52, 13.4 52.52, 13.4 52.5))';
    const composite = { Wkt: AREA, Date: '2026-08-01', Model: 'Stratus2', SatelliteConstellations: ['Sentinel2'], Bandnames: 'ndvi' };

    it('a request within the bounds reaches its handler', async () => {
      await send('downloads:enqueue', { kind: 'composite', request: composite });
      await send('service:call', { key: 'tasking.orders.list', params: { onlyRecurring: true } });
      expect(called).toEqual(['downloads:enqueue', 'service:call']);
    });

    it('refuses text past the bound, naming the field inside the body', async () => {
      const fields = await fieldsOf('downloads:enqueue', { kind: 'composite', request: { ...composite, Wkt: 'x'.repeat(JSON_LIMITS.chars + 1) } });
      expect(fields).toEqual({ 'request.Wkt': [`Its text runs past ${JSON_LIMITS.chars} characters in all.`] });
      expect(await fieldsOf('profiles:set-key', { id: 'p1', key: 'k'.repeat(MAX_SECRET + 1) })).toEqual({ key: [`At most ${MAX_SECRET} characters.`] });
      expect(await fieldsOf('downloads:enqueue', { kind: 'composite', request: composite, targetDir: `/${'d'.repeat(MAX_PATH)}` })).toEqual({ targetDir: [`At most ${MAX_PATH} characters.`] });
    });

    it('refuses lists past the bound', async () => {
      expect(await fieldsOf('library:import', { paths: Array.from({ length: MAX_SELECTION + 1 }, (_, i) => `/data/${i}.tif`) })).toEqual({ paths: [`At most ${MAX_SELECTION} items.`] });
      const watch = {
        name: 'W', source: { kind: 'aoi', orderId: null, recurring: null }, area: { Wkt: AREA }, model: 'Stratus2',
        constellations: Array.from({ length: MAX_LIST + 1 }, (_, i) => `C${i}`), from: '2026-01-01', to: null,
        settings: { EpsgProjection: 32633, Bandnames: 'ndvi', DataType: 'INT16', Resolution: 10, PixelSelectionMode: 'intersect' }, capEur: null, everyHours: 6,
      };
      expect(await fieldsOf('watches:create', watch)).toEqual({ constellations: [`At most ${MAX_LIST} items.`] });
    });

    it('refuses an open value too deep, too large or not JSON, naming where', async () => {
      let deep: unknown = 1;
      for (let i = 0; i <= JSON_LIMITS.depth; i++) deep = { a: deep };
      const tooDeep = await fieldsOf('service:call', { key: 'tasking.searchTiles', body: deep });
      expect(Object.keys(tooDeep)).toEqual([['body', ...Array(JSON_LIMITS.depth).fill('a')].join('.')]);
      expect(Object.values(tooDeep)[0]).toEqual([`Nested more than ${JSON_LIMITS.depth} levels deep.`]);
      const many = { type: 'Polygon', coordinates: new Array(JSON_LIMITS.values).fill(0) };
      expect(await fieldsOf('export:geojson', { name: 'aoi', features: [{ layer: 'aoi', geometry: many }] })).toEqual({ features: [`Holds more than ${JSON_LIMITS.values} values (numbers, strings, items and fields).`] });
      expect(await fieldsOf('team:check', { kind: 'composite', request: { Wkt: AREA, When: new Date(0) } })).toEqual({ 'request.When': ['Not a JSON value (a number, string, boolean, null, list or object).'] });
    });
  });

  it('jsonProblem stops at the first bound, before reading past it', () => {
    expect(jsonProblem({ a: [1, 'x', null, true, { b: [] }] })).toBeNull();
    // A list longer than the bound is refused from its length alone.
    const sparse: unknown[] = [];
    sparse.length = JSON_LIMITS.values + 1;
    expect(jsonProblem({ list: sparse })).toEqual({ path: [], message: expect.stringMatching(/more than/) });
    expect(jsonProblem([{ ok: 1 }, { bad: new Map() }])).toEqual({ path: [1, 'bad'], message: expect.stringMatching(/Not a JSON value/) });
  });
});
