import { createHash } from 'node:crypto';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ApiError } from './errors.js';
import { keyFieldsOfSchema } from './redact.js';
import { diffSpecs, pathShape, type SpecDiff } from './spec-diff.js';
import type { JsonSchema, ParameterLocation, SpecOperation } from './spec-operation.js';
import type { Transport } from './transport.js';
import { isoNow, systemClock, type Clock } from '../platform/clock.js';
import { readJsonFile, writeJsonAtomic } from '../shared/files.js';

export type { JsonSchema, ParameterLocation, SpecOperation } from './spec-operation.js';

/** The service's specification after discovery. */
export interface DiscoveredSpec {
  baseUrl: string;
  /** info.version of the document. */
  version: string | null;
  title: string | null;
  /** 'network' when fetched on this connect, 'cache' when the service could not be reached. */
  source: 'network' | 'cache';
  fetchedAt: string;
  operations: SpecOperation[];
  /** Names of the answer fields the specification marks as the API key (masked in every answer). */
  keyFields: string[];
  /** How this specification differs from the one cached before it for the same base URL (the last such change); null when none is known. */
  drift: SpecDrift | null;
}

/** A change of the service's specification, as the Settings notice shows it. */
export interface SpecDrift extends SpecDiff {
  previous: { version: string | null; fetchedAt: string };
  current: { version: string | null; fetchedAt: string };
  /** When the change was noticed. */
  detectedAt: string;
}

/** Set when the discovered specification is not the contract version the app was built for. */
export interface ContractNotice {
  expected: string;
  actual: string | null;
  message: string;
}

const SPEC_PATH = '/api/specification.json';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** Compares the discovered version with the expected one; null when they match. */
export function contractNoticeFor(expected: string, actual: string | null): ContractNotice | null {
  if (actual === expected) return null;
  return {
    expected,
    actual,
    message: actual
      ? `The service publishes contract version ${actual}; this app was built for ${expected}. It keeps working from the service's published specification, but some screens may not match.`
      : `The service's specification declares no version; this app was built for ${expected}. It keeps working from the published specification.`,
  };
}

/** File of the cached specification of one base URL. */
export function specCacheFile(cacheDir: string, baseUrl: string): string {
  const id = createHash('sha256').update(normalizeBase(baseUrl)).digest('hex').slice(0, 24);
  return path.join(cacheDir, `specification-${id}.json`);
}

function normalizeBase(baseUrl: string): string {
  const u = new URL(baseUrl);
  return `${u.protocol}//${u.host.toLowerCase()}${u.pathname.replace(/\/+$/, '')}`;
}

interface CacheRecord {
  baseUrl: string;
  fetchedAt: string;
  specification: unknown;
  /** The last change found between this document and the one cached before it. */
  drift?: SpecDrift | null;
}

async function readCache(file: string): Promise<CacheRecord | null> {
  // Missing or corrupt: as good as no cache; the next successful fetch rewrites it.
  const rec = (await readJsonFile(file).catch(() => null)) as CacheRecord | null;
  return rec && typeof rec === 'object' && rec.specification && typeof rec.fetchedAt === 'string' ? rec : null;
}

/**
 * Loads {base}/api/specification.json, caches it per base URL, and falls back to the
 * cache when the service cannot be reached, so the open operations work offline.
 */
export async function discoverSpec(transport: Transport, cacheDir: string, signal?: AbortSignal, clock: Clock = systemClock): Promise<DiscoveredSpec> {
  const file = specCacheFile(cacheDir, transport.baseUrl);
  const cached = await readCache(file);
  let document: unknown;
  let source: DiscoveredSpec['source'] = 'network';
  let fetchedAt = isoNow(clock);
  try {
    // With a cache to fall back on, one quick attempt is enough; without one, retry as usual.
    document = await transport.document(
      { method: 'GET', path: SPEC_PATH, retryByDefault: true },
      signal,
      cached ? { retry: false, timeoutMs: 10_000 } : {},
    );
    if (!document || typeof document !== 'object' || !('paths' in document)) {
      throw new ApiError('invalid', `${transport.baseUrl}${SPEC_PATH} is not an OpenAPI document (no "paths").`);
    }
  } catch (e) {
    const offline = e instanceof ApiError && (e.kind === 'transient' || e.kind === 'rate-limited');
    if (!cached || !offline) throw e;
    transport.log(`Specification unavailable (${e.message}); using the copy cached at ${cached.fetchedAt}.`);
    document = cached.specification;
    source = 'cache';
    fetchedAt = cached.fetchedAt;
  }
  const spec = await parseSpec(document, { baseUrl: transport.baseUrl, source, fetchedAt });
  spec.drift = cached?.drift ?? null;
  if (source === 'network') {
    if (cached && JSON.stringify(cached.specification) !== JSON.stringify(document)) {
      const drift = await driftFrom(cached, spec, transport.baseUrl, clock);
      if (drift) {
        spec.drift = drift;
        transport.log(`The service's specification changed since ${cached.fetchedAt}: ${describeDrift(drift)}. Working from the new one.`);
      }
    }
    try {
      await writeJsonAtomic(file, { baseUrl: transport.baseUrl, fetchedAt, specification: document, drift: spec.drift } satisfies CacheRecord, undefined, { compact: true });
    } catch (e) {
      // A read-only cache costs only offline support; the connection itself is fine.
      transport.log(`Could not cache the specification in ${cacheDir}: ${(e as Error).message}`);
    }
  }
  return spec;
}

async function driftFrom(cached: CacheRecord, current: DiscoveredSpec, baseUrl: string, clock: Clock): Promise<SpecDrift | null> {
  let previous: DiscoveredSpec;
  try {
    previous = await parseSpec(cached.specification, { baseUrl, source: 'cache', fetchedAt: cached.fetchedAt });
  } catch {
    // An unreadable old copy has nothing to compare with.
    return null;
  }
  const diff = diffSpecs(previous, current);
  if (!diff) return null;
  return {
    ...diff,
    previous: { version: previous.version, fetchedAt: cached.fetchedAt },
    current: { version: current.version, fetchedAt: current.fetchedAt },
    detectedAt: isoNow(clock),
  };
}

function describeDrift(d: SpecDiff): string {
  const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
  return [
    n(d.operations.added.length, 'operation') + ' added',
    `${d.operations.removed.length} removed`,
    `${d.operations.renamed.length} renamed`,
    n(d.fields.length, 'field change'),
  ].join(', ');
}

/** Operations converted between two turns of the event loop while a specification is parsed. */
const OPERATIONS_PER_TURN = 8;

/**
 * Dereferences an OpenAPI 3 document and extracts its operations. The work is cut into slices
 * (the expansion check, the dereferencing, a few operations at a time, the key fields) with a turn
 * of main's event loop between them: the service's specification takes tens of milliseconds of
 * CPU on a connection's first parse, which IPC and downloads should not wait for in one piece.
 */
export async function parseSpec(document: unknown, meta: { baseUrl: string; source: DiscoveredSpec['source']; fetchedAt: string }): Promise<DiscoveredSpec> {
  let doc: Record<string, unknown>;
  checkSpecExpansion(document);
  await nextTurn();
  try {
    doc = dereferenceLocal(document) as Record<string, unknown>;
  } catch (e) {
    throw new ApiError('invalid', `The service's specification could not be read: ${(e as Error).message}`);
  }
  await nextTurn();
  const info = (doc.info ?? {}) as Record<string, unknown>;
  const operations: SpecOperation[] = [];
  for (const [p, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    if (!item || typeof item !== 'object') continue;
    const shared = Array.isArray(item.parameters) ? (item.parameters as Record<string, unknown>[]) : [];
    for (const method of HTTP_METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op || typeof op !== 'object') continue;
      operations.push(buildOperation(method.toUpperCase(), p, op, shared));
      if (operations.length % OPERATIONS_PER_TURN === 0) await nextTurn();
    }
  }
  await nextTurn();
  const keyFields = new Set<string>();
  for (const op of operations) keyFieldsOfSchema(op.response, keyFields);
  return {
    baseUrl: meta.baseUrl,
    version: typeof info.version === 'string' ? info.version : null,
    title: typeof info.title === 'string' ? info.title : null,
    source: meta.source,
    fetchedAt: meta.fetchedAt,
    operations,
    keyFields: [...keyFields],
    drift: null,
  };
}

/** Nodes (objects and arrays) the dereferenced specification may expand to; the simulator's expands to about 4,000. */
export const MAX_SPEC_NODES = 200_000;
/** How deep the dereferenced specification may nest ($refs followed). */
export const MAX_SPEC_DEPTH = 256;

/** The value a local JSON pointer ($ref "#/a/b") names in `doc`, or undefined. */
function pointerTarget(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    if (!node || typeof node !== 'object') return undefined;
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/**
 * A copy of `doc` with every local $ref replaced by (a copy of) what it points to, each definition
 * converted once and shared; a $ref's sibling keys override the target's (as json-schema-ref-parser
 * merges them); a circular $ref, or one to another document, is left as it is. Linear in the
 * document (run after {@link checkSpecExpansion}), so discovery does not hold main's thread for the
 * tens of milliseconds a general dereferencer takes over the service's specification.
 */
export function dereferenceLocal(doc: unknown): unknown {
  const done = new Map<object, unknown>();
  const active = new Set<object>();
  const walk = (node: unknown): unknown => {
    if (!node || typeof node !== 'object') return node;
    const known = done.get(node);
    if (known !== undefined) return known;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#')) {
      const target = pointerTarget(doc, ref);
      if (target === undefined) throw new Error(`$ref ${ref} points to nothing in the document`);
      if (target && typeof target === 'object' && active.has(target)) return node;
      const resolved = walk(target);
      const siblings = Object.keys(node).filter((k) => k !== '$ref');
      if (!siblings.length || !resolved || typeof resolved !== 'object' || Array.isArray(resolved)) return resolved;
      const merged: Record<string, unknown> = { ...(resolved as Record<string, unknown>) };
      for (const k of siblings) merged[k] = walk((node as Record<string, unknown>)[k]);
      return merged;
    }
    active.add(node);
    let out: unknown;
    if (Array.isArray(node)) out = node.map(walk);
    else {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) o[k] = walk(v);
      out = o;
    }
    active.delete(node);
    done.set(node, out);
    return out;
  };
  return walk(doc);
}

/**
 * Refuses, before dereferencing, a specification whose $refs would expand it beyond
 * {@link MAX_SPEC_NODES} nodes or nest it beyond {@link MAX_SPEC_DEPTH} levels. Two $refs per
 * level double the expansion per level: a few kilobytes of hostile spec would keep the
 * dereferencer (and every later walk: forms, validation, key fields, drift) busy for days. The
 * expanded size is computed once per definition (memoised), so this check is linear in the document.
 */
export function checkSpecExpansion(doc: unknown): void {
  const memo = new Map<object, number>();
  const active = new Set<object>();
  const size = (node: unknown, depth: number): number => {
    if (!node || typeof node !== 'object') return 0;
    const known = memo.get(node);
    if (known !== undefined) return known;
    // A circular definition stays a $ref (dereferenceLocal leaves it in place).
    if (active.has(node)) return 1;
    if (depth > MAX_SPEC_DEPTH) {
      throw new ApiError('invalid', `The service's specification nests more than ${MAX_SPEC_DEPTH} levels deep through its $ref chains; Swath does not read it.`);
    }
    active.add(node);
    let n = 1;
    const ref = (node as { $ref?: unknown }).$ref;
    const isRef = typeof ref === 'string';
    if (isRef) n += size(pointerTarget(doc, ref), depth + 1);
    // A $ref's sibling keys are expanded too (merged into its target), so they count like any children.
    for (const [k, v] of Array.isArray(node) ? node.entries() : Object.entries(node)) {
      if (isRef && k === '$ref') continue;
      n += size(v, depth + 1);
      if (n > MAX_SPEC_NODES) break;
    }
    active.delete(node);
    n = Math.min(n, MAX_SPEC_NODES + 1);
    memo.set(node, n);
    return n;
  };
  if (size(doc, 0) > MAX_SPEC_NODES) {
    throw new ApiError('invalid', `The service's specification expands to more than ${MAX_SPEC_NODES} schema nodes through its $ref chains; Swath does not read it.`);
  }
}

function buildOperation(method: string, p: string, op: Record<string, unknown>, shared: Record<string, unknown>[]): SpecOperation {
  // Operation-level parameters override path-level ones of the same name and location.
  const byKey = new Map<string, Record<string, unknown>>();
  for (const prm of [...shared, ...(Array.isArray(op.parameters) ? (op.parameters as Record<string, unknown>[]) : [])]) {
    if (prm && typeof prm === 'object' && typeof prm.name === 'string') byKey.set(`${String(prm.in)}:${prm.name}`, prm);
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const parameterLocations: Record<string, ParameterLocation> = {};
  for (const prm of byKey.values()) {
    const where = String(prm.in);
    const name = String(prm.name);
    if (where !== 'query' && where !== 'path' && where !== 'header') continue;
    // The key is the transport's business, never a form field.
    if (where === 'header' && ['x-api-key', 'content-type', 'accept'].includes(name.toLowerCase())) continue;
    const schema = toJsonSchema(prm.schema ?? {}) as JsonSchema;
    if (typeof prm.description === 'string' && schema.description === undefined) schema.description = prm.description;
    if (prm.deprecated === true) schema.deprecated = true;
    properties[name] = schema;
    parameterLocations[name] = where;
    if (prm.required === true || where === 'path') required.push(name);
  }
  const parameters: JsonSchema = { type: 'object', properties, additionalProperties: false };
  if (required.length) parameters.required = required;

  let body: JsonSchema | null = null;
  let bodyRequired = false;
  const rb = op.requestBody as Record<string, unknown> | undefined;
  if (rb && typeof rb === 'object') {
    const content = (rb.content ?? {}) as Record<string, Record<string, unknown>>;
    const mediaKey = Object.keys(content).find((k) => /^application\/(.+\+)?json/i.test(k)) ?? Object.keys(content)[0];
    const media = mediaKey ? content[mediaKey] : undefined;
    if (media?.schema) {
      body = toJsonSchema(media.schema) as JsonSchema;
      if (typeof rb.description === 'string' && body.title === undefined) body.title = rb.description;
    }
    bodyRequired = rb.required === true;
  }
  return {
    response: responseData(op.responses),
    method,
    path: p,
    operationId: typeof op.operationId === 'string' ? op.operationId : null,
    summary: typeof op.summary === 'string' ? op.summary : null,
    description: typeof op.description === 'string' ? op.description : null,
    deprecated: op.deprecated === true,
    parameters,
    parameterLocations,
    body,
    bodyRequired,
  };
}

/** The Data schema of the first successful JSON response (the body itself when it is not an envelope). */
function responseData(responses: unknown): JsonSchema | null {
  if (!responses || typeof responses !== 'object') return null;
  const entries = Object.entries(responses as Record<string, unknown>).filter(([code]) => /^2\d\d$|^2XX$/i.test(code)).sort(([a], [b]) => a.localeCompare(b));
  for (const [, res] of entries) {
    const content = (res as { content?: Record<string, { schema?: unknown }> } | null)?.content;
    if (!content || typeof content !== 'object') continue;
    const mediaKey = Object.keys(content).find((k) => /^application\/(.+\+)?json/i.test(k));
    const schema = mediaKey ? content[mediaKey]?.schema : undefined;
    if (!schema || typeof schema !== 'object') continue;
    const data = (schema as { properties?: Record<string, unknown> }).properties?.Data;
    return toJsonSchema(data && typeof data === 'object' ? data : schema) as JsonSchema;
  }
  return null;
}

/** Finds an operation by METHOD and PATH (never by operationId, which services rename freely). */
export function findOperation(spec: DiscoveredSpec, method: string, p: string): SpecOperation | undefined {
  const m = method.toUpperCase();
  return spec.operations.find((o) => o.method === m && o.path === p) ?? spec.operations.find((o) => o.method === m && pathShape(o.path) === pathShape(p));
}

/**
 * Converts an OpenAPI 3.0 schema object to plain JSON Schema: `nullable` becomes a null
 * type, boolean exclusive bounds become numeric ones, and any $ref left by a circular
 * definition becomes an unconstrained schema. Always returns a fresh tree.
 */
export function toJsonSchema(schema: unknown, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((s) => toJsonSchema(s, depth + 1));
  if (!schema || typeof schema !== 'object') return schema;
  if (depth > 64) return {};
  const src = schema as Record<string, unknown>;
  if (typeof src.$ref === 'string') return { description: `Recursive definition (${src.$ref}).` };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) {
    switch (k) {
      case 'nullable':
      case 'discriminator':
      case 'xml':
      case 'externalDocs':
        break;
      case 'properties':
      case 'patternProperties':
      case 'definitions':
      case '$defs': {
        const props: Record<string, unknown> = {};
        for (const [name, s] of Object.entries((v ?? {}) as Record<string, unknown>)) props[name] = toJsonSchema(s, depth + 1);
        out[k] = props;
        break;
      }
      case 'items':
      case 'additionalProperties':
      case 'not':
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        out[k] = toJsonSchema(v, depth + 1);
        break;
      case 'enum':
      case 'required':
        out[k] = Array.isArray(v) ? [...v] : v;
        break;
      default:
        out[k] = v && typeof v === 'object' ? structuredClone(v) : v;
    }
  }
  if (src.exclusiveMinimum === true && typeof src.minimum === 'number') {
    out.exclusiveMinimum = src.minimum;
    delete out.minimum;
  } else if (typeof src.exclusiveMinimum === 'boolean') delete out.exclusiveMinimum;
  if (src.exclusiveMaximum === true && typeof src.maximum === 'number') {
    out.exclusiveMaximum = src.maximum;
    delete out.maximum;
  } else if (typeof src.exclusiveMaximum === 'boolean') delete out.exclusiveMaximum;
  if (src.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (out.type === undefined) {
      const { description, title, default: dflt, ...rest } = out;
      return { ...(title !== undefined ? { title } : {}), ...(description !== undefined ? { description } : {}), ...(dflt !== undefined ? { default: dflt } : {}), anyOf: [rest, { type: 'null' }] };
    }
  }
  return out;
}
