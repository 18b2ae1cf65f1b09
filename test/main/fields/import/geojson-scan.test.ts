import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { featureValueBudget, scanGeoJson } from '../../../../main/fields/import/geojson.js';
import { IMPORT_LIMITS, ImportError, ParcelStore } from '../../../../main/fields/parcels.js';
import { openDatabase } from '../../../../main/shared/database.js';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dirs.js';
import { square, writeText } from './helpers.js';

afterAll(() => removeTempDirs());

async function withStore<T>(fn: (store: ParcelStore, dir: string) => Promise<T>, options: Partial<ConstructorParameters<typeof ParcelStore>[0]> = {}): Promise<T> {
  const dir = makeTempDir('swath-fields-geojson-');
  const db = await openDatabase({ dir });
  const store = new ParcelStore({ db: db.db, file: db.file, ...options });
  try {
    return await fn(store, dir);
  } finally {
    await store.close();
    await db.close();
  }
}

/** A feature's JSON text: a small square at (15 + i / 100, 50) with properties `props`. */
const feature = (i: number, props: Record<string, unknown> = { pid: `F${i}` }): string =>
  JSON.stringify({ type: 'Feature', properties: props, geometry: { type: 'Polygon', coordinates: [square(15 + i / 100, 50, 0.005)] } });

const collection = (features: string[], before = '', after = ''): string => `{"type":"FeatureCollection",${before}"features":[${features.join(',')}]${after}}`;

describe('GeoJSON read one feature at a time', () => {
  it('imports a 150 MB file whose one feature holds 25 million points in a 256 MB heap, skipping that feature unparsed with its reason', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'hostile.geojson');
      const fd = openSync(file, 'w');
      writeSync(fd, `{"type":"FeatureCollection","features":[${feature(1)},{"type":"Feature","properties":{"pid":"huge","nm":"many points"},"geometry":{"type":"Polygon","coordinates":[[`);
      const point = Buffer.from('[0,0],');
      const chunk = Buffer.concat(Array.from({ length: 2 ** 17 }, () => point)); // 768 KiB
      for (let k = 0; k < 200; k++) writeSync(fd, chunk);
      writeSync(fd, `[0,0]]]}},${feature(3, { pid: 'F3', nm: 'last' })}]}`);
      closeSync(fd);
      const seen = await store.inspect(file);
      expect(seen.layers[0]).toMatchObject({ count: 3, columns: [{ name: 'pid', type: 'text' }, { name: 'nm', type: 'text' }] });
      const { set, skipped } = await store.import(file, { idColumn: 'pid', nameColumn: 'nm' });
      expect(set.count).toBe(2);
      expect(store.parcels(set.id).map((p) => [p.id, p.name])).toEqual([['F1', null], ['F3', 'last']]);
      expect(skipped).toEqual([{
        row: 2,
        id: 'huge',
        reason: `too large to read: ${3 * 200 * 2 ** 17 + 9} JSON values outside its properties, more than 601024 (what a geometry of 100000 points, the limit of points per parcel, holds)`,
      }]);
    }, { importHeapMb: 256 });
  });

  it('an import thread that runs out of memory fails the import with an ImportError naming the file, not the worker\'s error', async () => {
    let greedy = '';
    await withStore(async (store, dir) => {
      // A stand-in for the import worker that allocates until its heap limit ends it.
      greedy = writeText(dir, 'greedy-worker.mjs', `import { parentPort } from 'node:worker_threads';
parentPort.on('message', () => { const kept = []; for (;;) kept.push(new Array(10000).fill(0).map((_, i) => ({ i }))); });`);
      const file = writeText(dir, 'fields.geojson', collection([feature(1)]));
      const e = await store.inspect(file).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(ImportError);
      expect((e as Error).message).toBe("the import ran out of memory reading fields.geojson: the file needs more than the 32 MB of memory an import may use (split it into smaller files, or simplify its geometries)");
    }, { importHeapMb: 32, entry: () => ({ file: greedy, fromSource: false }) });
  });
});

describe('the GeoJSON scan', () => {
  const texts = (text: string) => {
    const bytes = Buffer.from(text);
    const scan = scanGeoJson(bytes, IMPORT_LIMITS);
    return { ...scan, elements: Array.from({ length: Math.min(scan.count, IMPORT_LIMITS.maxFeatures) }, (_, i) => bytes.toString('utf8', scan.starts[i], scan.ends[i])), rest: scan.rest.toString() };
  };

  it('finds the root\'s "features" array whatever its spelling, spacing and place, the last one when there are two, never one nested deeper', () => {
    const a = feature(1);
    const b = feature(2, { pid: 'B', features: [1, 2, { features: [] }] });
    expect(texts(collection([a, b]))).toMatchObject({ count: 2, elements: [a, b], rest: '{"type":"FeatureCollection","features":[]}' });
    // Escaped, pretty-printed, after a foreign member that holds a "features" of its own.
    const pretty = `{\n  "meta": {"features": [${a}]},\n  "feat\\u0075res" : [\n    ${a} ,\r\n\t${b}\n  ],\n  "type": "FeatureCollection"\n}\n`;
    expect(texts(pretty)).toMatchObject({ count: 2, elements: [a, b] });
    expect(JSON.parse(texts(pretty).rest)).toEqual({ meta: { features: [JSON.parse(a)] }, features: [], type: 'FeatureCollection' });
    // Two: the last wins, as in JSON.parse, and neither's content is in the rest.
    expect(texts(collection([a], '"features":[' + b + '],'))).toMatchObject({ count: 1, elements: [a], rest: '{"type":"FeatureCollection","features":[],"features":[]}' });
    expect(texts(collection([a], '', ',"features":{"not":"an array"}'))).toMatchObject({ count: 0 });
    expect(texts(collection([]))).toMatchObject({ count: 0, elements: [] });
    // Strings that look like structure.
    const tricky = feature(3, { pid: 'x"],"features":[', note: '\\"{[' });
    expect(texts(collection([tricky, '7', '"s"', 'null', '[1,[2]]']))).toMatchObject({ count: 5, elements: [tricky, '7', '"s"', 'null', '[1,[2]]'] });
  });

  it('counts each element\'s values, so a parcel within the points limit is read and one past it is not, naming which part is too large', () => {
    const budget = featureValueBudget(IMPORT_LIMITS);
    expect(budget).toEqual({ geometry: 6 * 100_000 + 1024, properties: 4 * 1000 + 64 });
    // The densest parcel of 100,000 points: 25,000 polygons of one 4-point ring each, with x, y, z and m.
    const ring = '[[[0,0,0,0],[1,0,0,0],[1,1,0,0],[0,0,0,0]]]';
    const dense = `{"type":"Feature","id":1,"bbox":[0,0,1,1],"properties":{"pid":"d"},"geometry":{"type":"MultiPolygon","coordinates":[${Array(25_000).fill(ring).join(',')}]}}`;
    const moreProps = feature(4, Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`c${i}`, i % 2 ? [i, i] : { v: i }])));
    const over = `{"type":"Feature","properties":{"pid":"o"},"geometry":{"type":"Polygon","coordinates":[[${Array(250_000).fill('[0,0]').join(',')}]]}}`;
    const wideProps = feature(5, { pid: 'w', list: Array(5000).fill(0) });
    const scan = scanGeoJson(Buffer.from(collection([dense, moreProps, over, wideProps, `[${Array(700_000).fill(0).join(',')}]`])), IMPORT_LIMITS);
    expect(scan.count).toBe(5);
    expect([...scan.big.keys()]).toEqual([2, 3, 4]);
    expect(scan.big.get(2)).toMatchObject({ values: 3 * 250_000 + 6, propertyValues: 1, object: true, properties: expect.any(Array) });
    expect(scan.big.get(3)).toMatchObject({ propertyValues: 5002, object: true, properties: null });
    expect(scan.big.get(4)).toMatchObject({ object: false });
  });

  it('refuses a text whose brackets do not match, that ends early, or has an empty element, before parsing any of it', () => {
    const scan = (text: string) => () => scanGeoJson(Buffer.from(text), IMPORT_LIMITS);
    expect(scan('{"type":"FeatureCollection","features":[{"a":[1}]}')).toThrow('the GeoJSON file is not valid JSON (byte 47: a "}" that closes a "[")');
    expect(scan('{"type":"FeatureCollection","features":[{"a":"]}')).toThrow('not valid JSON (the text ends inside a string)');
    expect(scan('{"type":"FeatureCollection","features":[{}')).toThrow('not valid JSON (the text ends before its arrays and objects close)');
    expect(scan('{"features":[{},]}')).toThrow('not valid JSON (byte 16: a "]" after a comma in "features")');
    expect(scan('{"features":[,{}]}')).toThrow('not valid JSON (byte 13: a "," with no element before it in "features")');
    expect(scan('{"features":[]} {}')).toThrow('not valid JSON (unexpected text after the document, at byte 16)');
    expect(scan('{"features":[]}]')).toThrow('not valid JSON (unexpected text after the document, at byte 15)');
    expect(scan(`{"features":[${'['.repeat(70)}${']'.repeat(70)}]}`)).toThrow('the GeoJSON nests arrays and objects more than 64 deep (byte 75), past the limit of 64');
  });
});

describe('GeoJSON documents at the edges', () => {
  it('imports through an escaped "features" key and the last of two, skips elements that are not Features with that reason, and ignores nested "features"', async () => {
    await withStore(async (store, dir) => {
      const file = writeText(dir, 'edges.geojson', collection(
        [feature(1, { pid: 'A', features: [feature(9)] }), '1', '"text"', 'null', '[1,2]', '{"type":"Point"}', feature(2, { pid: 'B' })],
        '"features":[' + feature(3, { pid: 'EARLIER' }) + '],"meta":{"features":[' + feature(4, { pid: 'META' }) + ']},',
      ).replace(/"features":\[\{"type":"Feature","properties":\{"pid":"A"/, '"feat\\u0075res":[{"type":"Feature","properties":{"pid":"A"'));
      const seen = await store.inspect(file);
      expect(seen.layers[0]).toMatchObject({ count: 7, columns: [{ name: 'pid', type: 'text' }, { name: 'features', type: 'array' }] });
      const { set, skipped } = await store.import(file, { idColumn: 'pid' });
      expect(store.parcels(set.id).map((p) => p.id)).toEqual(['A', 'B']);
      expect(skipped).toEqual([2, 3, 4, 5, 6].map((row) => ({ row, id: null, reason: 'not a GeoJSON Feature' })));
    });
  });

  it('reads an empty features array as a layer of no features and no columns, and refuses a last "features" that is not an array', async () => {
    await withStore(async (store, dir) => {
      const empty = writeText(dir, 'empty.geojson', ' {"type": "FeatureCollection", "features": [ ]} ');
      expect((await store.inspect(empty)).layers[0]).toMatchObject({ count: 0, columns: [] });
      await expect(store.import(empty, { idColumn: 'pid' })).rejects.toThrow('idColumn: the layer has no column named "pid"');
      const notArray = writeText(dir, 'object.geojson', collection([feature(1)], '', ',"features":{}'));
      await expect(store.inspect(notArray)).rejects.toThrow('the GeoJSON FeatureCollection has no "features" list');
      const noType = writeText(dir, 'notype.geojson', '{"features":[]}');
      await expect(store.inspect(noType)).rejects.toThrow('the GeoJSON is not a FeatureCollection (its "type" must be "FeatureCollection")');
      const array = writeText(dir, 'array.geojson', `[${feature(1)}]`);
      await expect(store.inspect(array)).rejects.toThrow('the GeoJSON is not a FeatureCollection');
    });
  });

  it('refuses a document whose members other than "features" are past 1 MiB, before or after the features, naming the limit', async () => {
    await withStore(async (store, dir) => {
      const big = `"notes":"${'x'.repeat(2 ** 20)}",`;
      const message = 'the GeoJSON\'s members other than its "features" ("type", "crs" and any others) take more than 1 MiB, past the limit for them';
      await expect(store.inspect(writeText(dir, 'before.geojson', collection([feature(1)], big)))).rejects.toThrow(message);
      await expect(store.inspect(writeText(dir, 'after.geojson', collection([feature(1)], '', `,${big.slice(0, -1)}`)))).rejects.toThrow(message);
      // Just under it is read.
      const small = `"notes":"${'x'.repeat(2 ** 20 - 100)}",`;
      expect((await store.inspect(writeText(dir, 'under.geojson', collection([feature(1)], small)))).layers[0]!.count).toBe(1);
    });
  });

  it('fails the whole file on a syntax error in one feature, naming the feature', async () => {
    await withStore(async (store, dir) => {
      const bad = feature(2).replace('"Feature"', '"Feature" 7');
      const text = collection([feature(1), bad, feature(3)]);
      const file = writeText(dir, 'bad.geojson', text);
      const at = text.indexOf(bad);
      await expect(store.inspect(file)).rejects.toThrow(new RegExp(`^the GeoJSON file is not valid JSON \\(feature 2, from byte ${at}: `));
      await expect(store.import(file, { idColumn: 'pid' })).rejects.toThrow(/not valid JSON \(feature 2,/);
      expect(store.sets()).toEqual([]);
    });
  });

  it('skips a feature whose properties alone are past their budget, with that reason (its id unread)', async () => {
    await withStore(async (store, dir) => {
      const file = writeText(dir, 'props.geojson', collection([feature(1), feature(2, { pid: 'W', list: Array(5000).fill(0) }), feature(3)]));
      const { set, skipped } = await store.import(file, { idColumn: 'pid' });
      expect(set.count).toBe(2);
      expect(skipped).toEqual([{ row: 2, id: null, reason: 'too large to read: its properties hold 5002 JSON values, more than 4064 (what 1000 columns, the limit of columns, hold)' }]);
    });
  });
});
