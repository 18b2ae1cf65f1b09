/**
 * GeoJSON reader: a FeatureCollection (RFC 7946). The file (within its size limit) is read whole and
 * walked once byte by byte ({@link scanGeoJson}): nesting, brackets and strings checked, the root's
 * "features" array found and the byte span of each of its elements kept. The root without that
 * array's content ("type", "crs", foreign members: bounded) is parsed alone, and each feature is
 * parsed from its own span when it is read, one at a time, so what the reader holds is the file's
 * bytes, the spans and one feature, whatever the file nests. A feature whose JSON holds more values
 * than a parcel within the limits can have is not parsed: it is skipped, naming the limit.
 * Its CRS is EPSG:4326 (a legacy `crs` member naming any other is refused, as its coordinates would
 * be read as degrees).
 */
import { readFileSync, statSync } from 'node:fs';
import { WGS84 } from './crs.js';
import { bytesText, checkFeatureCount, ImportError, type ImportLimits } from './limits.js';
import { valueType, type Source, type SourceColumn, type SourceFeature, type SourceLayer } from './source.js';

/**
 * The JSON values of one feature the reader parses at most, counted while scanning as the `[`, `{`
 * and `,` outside strings (each array and object JSON.parse allocates, and each item past the
 * first). A position costs at most 4 with x, y, z (its `[`, two commas, the comma after it; 5 with
 * an M), and each ring or polygon 2 more for at least 4 positions, so a geometry within the points
 * limit counts at most 6 per point; each property costs its comma and its value (4 allowed); 1024
 * cover the feature's own members ("type", "id", "bbox", the geometry's "type").
 */
export function featureValueBudget(limits: ImportLimits): { geometry: number; properties: number } {
  return { geometry: 6 * limits.maxVerticesPerParcel + 1024, properties: 4 * limits.maxColumns + 64 };
}

/** A features element past its budget: not parsed. */
interface BigFeature {
  /** Its values outside its "properties" member, and inside it. */
  values: number;
  propertyValues: number;
  /** Its first byte is `{`. */
  object: boolean;
  /** The span of its (last) "properties" value, when that is within its own budget (read for the id and name). */
  properties: [number, number] | null;
}

/** What {@link scanGeoJson} finds. */
export interface GeoJsonScan {
  /** Elements of the root's last "features" array, when it is an array: element i is bytes [starts[i], ends[i]), the first maxFeatures kept. */
  starts: Float64Array;
  ends: Float64Array;
  /** Elements of that array (all counted, past maxFeatures too); 0 when the root has no "features" array. */
  count: number;
  /** Elements past {@link featureValueBudget}, by index. */
  big: Map<number, BigFeature>;
  /** The root object with the content of each of its "features" arrays cut out: its other members. */
  rest: Buffer;
}

const notJson = (why: string): ImportError => new ImportError(`the GeoJSON file is not valid JSON (${why})`);

/** A member's name from its quoted bytes (escapes decoded as JSON.parse does), or null when it is too long to be one the reader looks for. */
function keyName(bytes: Buffer, start: number, end: number): string | null {
  if (end - start > 128) return null;
  try {
    return JSON.parse(bytes.toString('utf8', start, end)) as string;
  } catch {
    return null; // the member is checked again when its object is parsed
  }
}

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** The index of the first byte that is not JSON whitespace (bytes.length when none). */
function firstByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length && isSpace(bytes[i]!)) i++;
  return i;
}

/**
 * One pass over the JSON text of a document whose root is an object: strings and their escapes
 * skipped, each bracket matched with its opener and the nesting kept within maxJsonDepth (JSON.parse
 * and any walk of its result stay shallow); the root's members named "features" (the last one wins,
 * as in JSON.parse) and, in an array one, each element's span, its counted values (see
 * {@link featureValueBudget}) and the span of its "properties". Tokens other than brackets and
 * strings are left to JSON.parse of the parts read; an element past its budget is never parsed, so
 * only its brackets and strings are checked.
 */
export function scanGeoJson(bytes: Buffer, limits: ImportLimits): GeoJsonScan {
  const maxDepth = limits.maxJsonDepth;
  const budget = featureValueBudget(limits);
  const opener = new Uint8Array(maxDepth + 2);
  let starts = new Float64Array(Math.min(1024, limits.maxFeatures));
  let ends = new Float64Array(starts.length);
  const big = new Map<number, BigFeature>();
  const rest: Buffer[] = [];
  let restBytes = 0;
  let restFrom = 0;
  const keep = (end: number): void => {
    restBytes += end - restFrom;
    if (restBytes > limits.maxGeoJsonMembersBytes) {
      throw new ImportError(`the GeoJSON's members other than its "features" ("type", "crs" and any others) take more than ${bytesText(limits.maxGeoJsonMembersBytes)}, past the limit for them`);
    }
    rest.push(bytes.subarray(restFrom, end));
  };

  let depth = 0;
  let inString = false;
  let stringStart = 0;
  /** The last byte outside whitespace (a string's closing quote included). */
  let last = -1;
  let rootDone = false;
  // The root object's members (depth 1).
  let rootExpectKey = false;
  let rootKey = -1; // the key being read starts here
  let rootKeyEnd = -1;
  let rootName: string | null = null;
  let rootValue = false; // the next byte begins the value of member rootName
  // The "features" array being read (depth 2) and its element.
  let inFeatures = false;
  let count = 0;
  let expectElement = false;
  let elementStart = -1;
  let values = 0;
  // The element's members, when it is an object (depth 3).
  let elementExpectKey = false;
  let elementKey = -1;
  let elementKeyEnd = -1;
  let elementName: string | null = null;
  let elementValue = false;
  let propsStart = -1;
  let propsValuesBefore = 0;
  let props: [number, number] | null = null;
  let propsValues = 0;

  const endElementMember = (): void => {
    if (elementName === 'properties' && propsStart >= 0) {
      props = [propsStart, last + 1];
      propsValues = values - propsValuesBefore;
    }
    elementName = null;
    propsStart = -1;
  };
  const endElement = (): void => {
    if (count < limits.maxFeatures) {
      if (count === starts.length) {
        const n = Math.min(starts.length * 2, limits.maxFeatures);
        const s = new Float64Array(n);
        const e = new Float64Array(n);
        s.set(starts);
        e.set(ends);
        starts = s;
        ends = e;
      }
      starts[count] = elementStart;
      ends[count] = last + 1;
      const outside = values - propsValues;
      if (outside > budget.geometry || propsValues > budget.properties) {
        big.set(count, { values: outside, propertyValues: propsValues, object: bytes[elementStart] === 0x7b, properties: props && propsValues <= budget.properties ? props : null });
      }
    }
    count++;
    elementStart = -1;
  };

  const n = bytes.length;
  for (let i = firstByte(bytes); i < n; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) {
        inString = false;
        last = i;
        if (stringStart === rootKey) rootKeyEnd = i + 1;
        else if (stringStart === elementKey) elementKeyEnd = i + 1;
      }
      continue;
    }
    if (isSpace(b)) continue;
    if (rootDone) throw notJson(`unexpected text after the document, at byte ${i}`);
    if (rootValue && depth === 1) {
      rootValue = false;
      if (rootName === 'features') {
        // A later "features" replaces an earlier one, as in JSON.parse; one that is not an array is in `rest`.
        count = 0;
        big.clear();
        if (b === 0x5b) {
          keep(i + 1);
          inFeatures = true;
          expectElement = true;
        }
      }
    } else if (inFeatures && depth === 2 && expectElement && b !== 0x2c && b !== 0x5d) {
      expectElement = false;
      elementStart = i;
      values = 0;
      props = null;
      propsValues = 0;
      elementName = null;
      propsStart = -1;
      elementExpectKey = false;
    } else if (elementValue && depth === 3) {
      elementValue = false;
      if (elementName === 'properties') {
        propsStart = i;
        propsValuesBefore = values;
      }
    }
    switch (b) {
      case 0x22:
        inString = true;
        stringStart = i;
        if (depth === 1 && rootExpectKey) {
          rootExpectKey = false;
          rootKey = i;
        } else if (depth === 3 && elementExpectKey) {
          elementExpectKey = false;
          elementKey = i;
        }
        break;
      case 0x5b:
      case 0x7b:
        if (++depth > maxDepth) throw new ImportError(`the GeoJSON nests arrays and objects more than ${maxDepth} deep (byte ${i}), past the limit of ${maxDepth}`);
        opener[depth] = b;
        if (b === 0x7b) {
          if (depth === 1) rootExpectKey = true;
          else if (depth === 3 && inFeatures && i === elementStart) elementExpectKey = true;
        }
        if (inFeatures && depth >= 3) values++;
        break;
      case 0x5d:
      case 0x7d:
        // depth is at least 1 here: the scan starts at the root's "{" and ends with it.
        if (opener[depth] !== b - 2) throw notJson(`byte ${i}: a "${String.fromCharCode(b)}" that closes a "${String.fromCharCode(opener[depth]!)}"`);
        if (inFeatures) {
          if (depth === 3 && b === 0x7d && opener[3] === 0x7b) endElementMember();
          else if (depth === 2) {
            if (elementStart >= 0) endElement();
            else if (count > 0) throw notJson(`byte ${i}: a "]" after a comma in "features"`);
            inFeatures = false;
            restFrom = i;
          }
        }
        if (--depth === 0) rootDone = true;
        break;
      case 0x2c:
        if (depth === 1) rootExpectKey = true;
        else if (inFeatures) {
          if (depth === 2) {
            if (elementStart < 0) throw notJson(`byte ${i}: a "," with no element before it in "features"`);
            endElement();
            expectElement = true;
          } else {
            if (depth === 3 && opener[3] === 0x7b && elementStart >= 0) {
              endElementMember();
              elementExpectKey = true;
            }
            values++;
          }
        }
        break;
      case 0x3a:
        if (depth === 1 && rootKeyEnd > rootKey && rootKey >= 0) {
          rootName = keyName(bytes, rootKey, rootKeyEnd);
          rootKey = rootKeyEnd = -1;
          rootValue = true;
        } else if (depth === 3 && inFeatures && elementKeyEnd > elementKey && elementKey >= 0) {
          elementName = keyName(bytes, elementKey, elementKeyEnd);
          elementKey = elementKeyEnd = -1;
          elementValue = true;
        }
        break;
    }
    last = i;
  }
  if (inString) throw notJson('the text ends inside a string');
  if (depth > 0) throw notJson('the text ends before its arrays and objects close');
  keep(n);
  return { starts, ends, count, big, rest: Buffer.concat(rest) };
}

const CRS84 = /^(urn:ogc:def:crs:OGC:1\.3:CRS84|urn:ogc:def:crs:EPSG::4326|EPSG:4326)$/i;

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw notJson(`${where}${(e as Error).message}`);
  }
}

const NOT_A_COLLECTION = 'the GeoJSON is not a FeatureCollection (its "type" must be "FeatureCollection")';

type Feature = { type?: unknown; properties?: Record<string, unknown> | null; geometry?: unknown } | null;

export function openGeoJson(file: string, limits: ImportLimits): Source {
  const size = statSync(file).size;
  if (size > limits.maxGeoJsonBytes) throw new ImportError(`the GeoJSON file is ${size} bytes, more than the limit of ${bytesText(limits.maxGeoJsonBytes)}`);
  const bytes = readFileSync(file);
  if (bytes[firstByte(bytes)] !== 0x7b) {
    // Not an object: only a small one is parsed (and its result dropped), to tell a JSON error from another document.
    if (bytes.length > limits.maxGeoJsonMembersBytes) throw new ImportError(NOT_A_COLLECTION);
    parseJson(bytes.toString('utf8'), '');
    throw new ImportError(NOT_A_COLLECTION);
  }
  const scan = scanGeoJson(bytes, limits);
  const fc = parseJson(scan.rest.toString('utf8'), '') as { type?: unknown; features?: unknown; crs?: { properties?: { name?: unknown } } };
  if (!fc || typeof fc !== 'object' || fc.type !== 'FeatureCollection') throw new ImportError(NOT_A_COLLECTION);
  if (!Array.isArray(fc.features)) throw new ImportError('the GeoJSON FeatureCollection has no "features" list');
  const crsName = fc.crs?.properties?.name;
  if (fc.crs != null && !(typeof crsName === 'string' && CRS84.test(crsName))) {
    throw new ImportError(`the GeoJSON's "crs" member names ${typeof crsName === 'string' ? crsName.slice(0, 100) : 'an unknown CRS'}; GeoJSON is read as EPSG:4326 (RFC 7946): reproject it to WGS 84 first`);
  }
  checkFeatureCount(scan.count, 'the GeoJSON FeatureCollection', limits);
  const { starts, ends, big } = scan;
  const count = scan.count;
  const budget = featureValueBudget(limits);
  const parseSpan = (start: number, end: number, row: number): unknown => parseJson(bytes.toString('utf8', start, end), `feature ${row}, from byte ${start}: `);
  const feature = (i: number): Feature => parseSpan(starts[i]!, ends[i]!, i + 1) as Feature;
  /** The properties of a feature past its budget, when they could be read. */
  const bigProperties = (i: number, f: BigFeature): unknown => (f.properties ? parseSpan(f.properties[0], f.properties[1], i + 1) : null);
  const tooBig = (f: BigFeature): string =>
    f.propertyValues > budget.properties
      ? `too large to read: its properties hold ${f.propertyValues} JSON values, more than ${budget.properties} (what ${limits.maxColumns} columns, the limit of columns, hold)`
      : `too large to read: ${f.values} JSON values outside its properties, more than ${budget.geometry} (what a geometry of ${limits.maxVerticesPerParcel} points, the limit of points per parcel, holds)`;

  const columns = new Map<string, Set<string>>();
  for (let i = 0; i < count; i++) {
    const b = big.get(i);
    const props = b ? bigProperties(i, b) : (feature(i) as { properties?: unknown } | null)?.properties;
    if (!props || typeof props !== 'object') continue;
    for (const [k, v] of Object.entries(props)) {
      let types = columns.get(k);
      if (!types) {
        if (columns.size >= limits.maxColumns) throw new ImportError(`the GeoJSON's features have more than ${limits.maxColumns} distinct properties, past the limit of ${limits.maxColumns} columns`);
        columns.set(k, (types = new Set()));
      }
      if (v !== null) types.add(valueType(v));
    }
  }
  const cols: SourceColumn[] = [...columns].map(([name, types]) => ({ name, type: types.size === 1 ? [...types][0]! : types.size === 0 ? 'null' : 'mixed' }));
  const layer: SourceLayer = { name: 'features', count, columns: cols, crs: WGS84 };
  return {
    format: 'geojson',
    layers: () => [layer],
    *features(_layer, c): Iterable<SourceFeature> {
      for (let i = 0; i < count; i++) {
        const b = big.get(i);
        if (b) {
          if (!b.object) {
            yield { row: i + 1, id: null, name: null, geometry: null, unreadable: 'not a GeoJSON Feature' };
            continue;
          }
          const p = bigProperties(i, b);
          const props = (p && typeof p === 'object' ? p : {}) as Record<string, unknown>;
          yield { row: i + 1, id: props[c.id], name: c.name ? props[c.name] : null, geometry: null, unreadable: tooBig(b) };
          continue;
        }
        const f = feature(i);
        if (!f || typeof f !== 'object' || f.type !== 'Feature') {
          yield { row: i + 1, id: null, name: null, geometry: null, unreadable: 'not a GeoJSON Feature' };
          continue;
        }
        const props = f.properties && typeof f.properties === 'object' ? f.properties : {};
        yield { row: i + 1, id: props[c.id], name: c.name ? props[c.name] : null, geometry: f.geometry };
      }
    },
    close() {},
  };
}
