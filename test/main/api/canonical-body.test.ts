import { describe, expect, it } from 'vitest';
import { ApiError, PAID_BODY_FIELDS, canonicalBody, canonicalPayload, findOperation, parseSpec, requireCanonical } from '../../../main/api';
import { watchRequest } from '../../../main/watches';
import { startTestSim } from '../../simulator/helpers.js';
import { makeClient } from './helpers.js';

// The one spelling of a paid request: what main prices, checks and sends.

const WKT = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const GUID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const GUID2 = '3f2504e0-4f89-11d3-9a0c-0305e82c3302';

/** The validation error a call throws, as the channel would answer it. */
function refusal(f: () => unknown): { kind: string; message: string; fields: Record<string, string[]> } {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    const error = e as ApiError;
    return { kind: error.kind, message: error.message, fields: error.fields ?? {} };
  }
  throw new Error('not refused');
}

describe('canonicalBody: a paid body in the contract\'s spelling', () => {
  it.each(['automaticOrderCreation', 'automaticordercreation', 'AUTOMATICORDERCREATION', 'AutomaticOrderCreation'])('reads %s as AutomaticOrderCreation, every other field kept as given and in its place', (name) => {
    const body = { wkt: WKT, Date: '2026-11-03', MODEL: 'Stratus2', [name]: true, bandnames: 'ndvi' };
    const out = canonicalBody('composite', body);
    expect(Object.entries(out)).toEqual([['Wkt', WKT], ['Date', '2026-11-03'], ['Model', 'Stratus2'], ['AutomaticOrderCreation', true], ['Bandnames', 'ndvi']]);
    expect(body).toHaveProperty(name, true);
  });

  it.each([
    ['tile', 'tileGuid', 'TileGuid'], ['tile', 'TILEGUID', 'TileGuid'], ['tile', 'tileguid', 'TileGuid'],
    ['minitile', 'miniTileGuid', 'MiniTileGuid'], ['minitile', 'MINITILEGUID', 'MiniTileGuid'], ['minitile', 'minitileguid', 'MiniTileGuid'],
    ['estimate', 'miniTileGuid', 'MiniTileGuid'], ['estimate', 'tileGuid', 'TileGuid'], ['order', 'tileGuids', 'TileGuids'],
  ] as const)('a %s body reads %s as %s', (kind, given, canonical) => {
    const date = kind === 'order' ? { from: '2026-11-03' } : { date: '2026-11-03' };
    expect(canonicalBody(kind, { [given]: GUID, ...date })).toEqual({ [canonical]: GUID, ...(kind === 'order' ? { From: '2026-11-03' } : { Date: '2026-11-03' }) });
  });

  it('refuses two fields that differ only by case, naming the later one and both spellings', () => {
    const cases: [Parameters<typeof canonicalBody>[0], Record<string, unknown>, string][] = [
      ['composite', { AutomaticOrderCreation: false, automaticOrderCreation: true }, 'automaticOrderCreation'],
      ['composite', { Wkt: WKT, wkt: 'POLYGON((13 52, 14 52, 14 53, 13 53, 13 52))' }, 'wkt'],
      ['tile', { TileGuid: GUID, tileGuid: GUID2 }, 'tileGuid'],
      ['minitile', { miniTileGuid: GUID, MINITILEGUID: GUID2 }, 'MINITILEGUID'],
      ['estimate', { TileGuid: GUID, TILEGUID: GUID2 }, 'TILEGUID'],
      ['order', { From: '2026-01-01', from: '2025-01-01' }, 'from'],
    ];
    for (const [kind, body, field] of cases) {
      const r = refusal(() => canonicalBody(kind, body));
      expect(r.kind).toBe('validation');
      expect(Object.keys(r.fields), field).toEqual([field]);
      expect(r.fields[field]![0]).toMatch(/differ only by case/);
      expect(r.message).toContain(`${field}:`);
      expect(r.message).toMatch(/was not sent/);
    }
  });

  it('refuses a field the contract does not list for the operation, naming it', () => {
    const cases: [Parameters<typeof canonicalBody>[0], string][] = [
      ['order', 'SimulatedEuroUsage'], ['order', 'simulatedEuroUsage'], ['order', 'Tiles'], ['order', 'Until'],
      ['composite', 'TileGuid'], ['composite', 'Extra'], ['tile', 'MiniTileGuid'], ['minitile', 'Wkt'], ['estimate', 'From'],
    ];
    for (const [kind, field] of cases) {
      const r = refusal(() => canonicalBody(kind, { [field]: 1 }));
      expect(Object.keys(r.fields), `${kind} ${field}`).toEqual([field]);
      expect(r.fields[field]![0]).toMatch(/is not a field of a/);
    }
    expect(refusal(() => canonicalBody('order', { tileDeduplication: true })).fields.tileDeduplication![0]).toMatch(/option of creating the order/);
    expect(refusal(() => canonicalBody('composite', [WKT])).fields).toEqual({ Body: ['the request body must be a JSON object.'] });
  });

  it('refuses GeoJSON members that differ only by case, in a collection\'s geometries too', () => {
    const ring = [[13.4, 52.5], [13.43, 52.5], [13.43, 52.52], [13.4, 52.5]];
    expect(canonicalBody('composite', { geojson: { type: 'Polygon', coordinates: [ring] } })).toEqual({ GeoJson: { type: 'Polygon', coordinates: [ring] } });
    expect(refusal(() => canonicalBody('composite', { GeoJson: { type: 'Polygon', coordinates: [ring], Coordinates: [[[0, 0]]] } })).fields.GeoJson![0])
      .toMatch(/"coordinates" and "Coordinates" differ only by case/);
    expect(refusal(() => canonicalBody('order', { GeoJson: { type: 'GeometryCollection', geometries: [{ type: 'Polygon', coordinates: [ring], TYPE: 'Point' }] } })).fields.GeoJson![0])
      .toMatch(/"type" and "TYPE"/);
  });

  it('lists the contract\'s fields of each paid body', () => {
    expect(PAID_BODY_FIELDS.composite).toContain('AutomaticOrderCreation');
    expect(PAID_BODY_FIELDS.tile).toEqual(['TileGuid', 'Date', 'SatelliteConstellations', 'Model', 'Level', 'Harmonize', 'ClipReflectance', 'UploadUrl']);
    expect(PAID_BODY_FIELDS.minitile[0]).toBe('MiniTileGuid');
    expect(PAID_BODY_FIELDS.order).not.toContain('SimulatedEuroUsage');
    expect(PAID_BODY_FIELDS.order).not.toContain('TileDeduplication');
  });
});

describe('requireCanonical and canonicalPayload: what main holds and sends', () => {
  it('refuses a body main holds in another spelling, and takes the canonical one', () => {
    const r = refusal(() => requireCanonical('composite', { Wkt: WKT, automaticOrderCreation: true }));
    expect(r.fields.automaticOrderCreation![0]).toMatch(/AutomaticOrderCreation/);
    expect(() => requireCanonical('composite', { Wkt: WKT, AutomaticOrderCreation: true })).not.toThrow();
    expect(() => requireCanonical('minitile', { miniTileGuid: GUID })).toThrow(/MiniTileGuid/);
  });

  it('a watch\'s body is canonical', () => {
    const body = watchRequest({
      area: { Wkt: WKT }, model: 'Stratus2', constellations: ['Sentinel1', 'Sentinel2'],
      settings: { EpsgProjection: 32633, Bandnames: 'ndvi', DataType: 'INT16', Resolution: 10, PixelSelectionMode: 'intersect' },
    } as never, '2026-11-03');
    expect(() => requireCanonical('composite', body)).not.toThrow();
    expect(() => requireCanonical('estimate', body)).not.toThrow();
  });

  it('an order payload is the JSON of the canonical record: an estimate\'s own text is unchanged, another spelling is rebuilt', () => {
    const record = { Wkt: WKT, Model: 'Stratus2', SatelliteConstellations: ['Sentinel1'], ImageFrequency: 7, ReferenceDate: '2026-11-01', From: '2026-11-01', To: null };
    const text = JSON.stringify(record);
    expect(canonicalPayload(text)).toBe(text);
    expect(canonicalPayload(JSON.stringify({ ...record, Wkt: undefined, wkt: WKT }))).toBe(JSON.stringify({ Model: 'Stratus2', SatelliteConstellations: ['Sentinel1'], ImageFrequency: 7, ReferenceDate: '2026-11-01', From: '2026-11-01', To: null, Wkt: WKT }));
    // The same name twice in the text: what is sent is the one value main read.
    expect(JSON.parse(canonicalPayload('{"Wkt":"a","Wkt":"b"}'))).toEqual({ Wkt: 'b' });
    expect(canonicalPayload('{"Wkt":"a","Wkt":"b"}')).toBe('{"Wkt":"b"}');
    expect(refusal(() => canonicalPayload(JSON.stringify({ ...record, SimulatedEuroUsage: 1e6 }))).fields).toHaveProperty('SimulatedEuroUsage');
    expect(refusal(() => canonicalPayload('{"Wkt":')).fields.Body![0]).toMatch(/not valid JSON/);
  });
});

describe('the client sends only canonical paid bodies', () => {
  it('refuses a composite, tile, mini-tile, estimate or order body in another spelling before any request leaves', async () => {
    const t = await startTestSim();
    const c = makeClient(t.url);
    try {
      await c.client.connect();
      const sent = c.attempts.length;
      const date = { Date: '2026-11-03', Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'] };
      const calls: [string, () => Promise<unknown>][] = [
        ['automaticOrderCreation', () => c.client.processComposite({ Wkt: WKT, ...date, automaticOrderCreation: true } as never)],
        ['tileGuid', () => c.client.processTile({ tileGuid: GUID, ...date } as never)],
        ['miniTileGuid', () => c.client.processMiniTile({ miniTileGuid: GUID, ...date } as never)],
        ['tileguid', () => c.client.compositeEstimate({ tileguid: GUID } as never)],
        ['SimulatedEuroUsage', () => c.client.estimateOrder(JSON.stringify({ Wkt: WKT, SimulatedEuroUsage: 1e6 }))],
        ['wkt', () => c.client.createOrder(JSON.stringify({ wkt: WKT }))],
      ];
      for (const [field, call] of calls) {
        const e = await call().then(() => null, (error: unknown) => error as ApiError);
        expect(e, field).toBeInstanceOf(ApiError);
        expect(e!.fields, field).toHaveProperty(field);
      }
      expect(c.attempts.length).toBe(sent);
    } finally {
      await c.close();
      await t.close();
    }
  });
});

describe('the canonical spelling is the specification\'s', () => {
  it('every known field the simulator\'s specification names for a paid operation is spelled there as main spells it', async () => {
    const t = await startTestSim();
    try {
      const doc = await (await fetch(`${t.url}/api/specification.json`)).json();
      const spec = await parseSpec(doc, { baseUrl: t.url, source: 'network', fetchedAt: new Date().toISOString() });
      const paths: [Parameters<typeof canonicalBody>[0], string][] = [
        ['composite', '/api/satelliteimages/process/composite'], ['tile', '/api/satelliteimages/process/tile'],
        ['minitile', '/api/satelliteimages/process/minitile'], ['estimate', '/api/satelliteimages/process/composite/estimate'],
        ['order', '/api/tasking/orders/estimate'], ['order', '/api/tasking/orders'],
      ];
      for (const [kind, p] of paths) {
        const names = Object.keys((findOperation(spec, 'POST', p)!.body as { properties: Record<string, unknown> }).properties);
        const bySpec = new Map(names.map((n) => [n.toLowerCase(), n]));
        const named = PAID_BODY_FIELDS[kind].filter((f) => bySpec.has(f.toLowerCase()));
        expect(named.map((f) => bySpec.get(f.toLowerCase())), p).toEqual(named);
        // The process bodies: the specification names each of the contract's fields.
        if (kind !== 'estimate' && kind !== 'order') expect(named, p).toEqual(PAID_BODY_FIELDS[kind]);
      }
    } finally {
      await t.close();
    }
  });
});
