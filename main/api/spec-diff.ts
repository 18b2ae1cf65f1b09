import type { JsonSchema, SpecOperation } from './spec-operation.js';

/**
 * What changed between two versions of a service's specification: operations
 * (method + path) added, removed or renamed, and, per operation, the fields of
 * its parameters, request body and response Data added, removed, renamed or
 * given another type. Schemas are compared after $ref resolution, so moving a
 * definition around is no change.
 *
 * Rename heuristic. A specification does not say that a field was renamed; a
 * rename shows as one field removed and one added. They are paired as a rename
 * when both sit under the same parent, have the same type, and either
 * - keep their place among their siblings: the same index, or the same kept
 *   neighbours before and after (Orders between Count and Total -> TaskOrders
 *   between Count and Total), or
 * - have similar names: one contains the other, or their edit distance is at
 *   most 40 % of the longer name, case and separators ignored (Epsg -> EpsgCode,
 *   CreditAmount -> CreditsAmount).
 * The best-scoring pairs are taken first (similar name and same position beat
 * either alone). Operations are paired the same way: same method and the same
 * operationId or a similar path. Fields under a renamed field are compared under
 * its new name. A removed or added object is reported once, not field by field.
 */

/** An operation as the drift notice names it. */
export interface OperationRef {
  method: string;
  path: string;
  operationId: string | null;
}

/** Where in an operation a field lives. */
export type FieldSection = 'parameter' | 'body' | 'response';

/** One field change of one operation. */
export interface FieldChange {
  /** "METHOD /path" of the operation in the new specification (the old one for a removed operation's fields, never listed). */
  operation: string;
  section: FieldSection;
  change: 'added' | 'removed' | 'renamed' | 'retyped';
  /** Dotted path of the field (array items as "[]"), as it was for removed/renamed/retyped, as it is for added. */
  field: string;
  /** The new path of a renamed field. */
  to?: string;
  /** Type of the field (the new type for retyped ones). */
  type: string;
  /** The old type of a retyped field. */
  fromType?: string;
}

/** The differences between the cached specification and the one just discovered. */
export interface SpecDiff {
  operations: {
    added: OperationRef[];
    removed: OperationRef[];
    renamed: { from: OperationRef; to: OperationRef }[];
  };
  fields: FieldChange[];
}

const MAX_DEPTH = 8;

/** Compares two discovered specifications; null when operations and fields are the same. */
export function diffSpecs(before: { operations: SpecOperation[] }, after: { operations: SpecOperation[] }): SpecDiff | null {
  const keyOf = (op: SpecOperation) => `${op.method} ${pathShape(op.path)}`;
  const oldOps = new Map(before.operations.map((op) => [keyOf(op), op]));
  const newOps = new Map(after.operations.map((op) => [keyOf(op), op]));
  const removed = [...oldOps.entries()].filter(([k]) => !newOps.has(k)).map(([, op]) => op);
  const added = [...newOps.entries()].filter(([k]) => !oldOps.has(k)).map(([, op]) => op);
  const pairs: [SpecOperation, SpecOperation][] = [...oldOps.entries()].filter(([k]) => newOps.has(k)).map(([k, op]) => [op, newOps.get(k)!]);

  const renamed = pairUp(removed, added, (a, b) => {
    if (a.method !== b.method) return null;
    if (a.operationId && a.operationId === b.operationId) return 2;
    const sim = similarity(pathShape(a.path), pathShape(b.path));
    return sim >= 0.6 ? sim : null;
  });
  for (const [a, b] of renamed) pairs.push([a, b]);

  const fields: FieldChange[] = [];
  for (const [a, b] of pairs) {
    const operation = `${b.method} ${b.path}`;
    const push = (section: FieldSection) => (c: Omit<FieldChange, 'operation' | 'section'>) => fields.push({ operation, section, ...c });
    diffFields(a.parameters, b.parameters, '', push('parameter'), 0);
    diffFields(a.body, b.body, '', push('body'), 0);
    diffFields(a.response, b.response, '', push('response'), 0);
  }
  const renamedFrom = new Set(renamed.map(([a]) => a));
  const renamedTo = new Set(renamed.map(([, b]) => b));
  const diff: SpecDiff = {
    operations: {
      added: added.filter((op) => !renamedTo.has(op)).map(ref),
      removed: removed.filter((op) => !renamedFrom.has(op)).map(ref),
      renamed: renamed.map(([a, b]) => ({ from: ref(a), to: ref(b) })),
    },
    fields,
  };
  const empty = !diff.operations.added.length && !diff.operations.removed.length && !diff.operations.renamed.length && !fields.length;
  return empty ? null : diff;
}

function ref(op: SpecOperation): OperationRef {
  return { method: op.method, path: op.path, operationId: op.operationId };
}

interface Field {
  name: string;
  schema: JsonSchema;
  position: number;
}

type Emit = (c: Omit<FieldChange, 'operation' | 'section'>) => void;

function join(prefix: string, name: string): string {
  return prefix ? `${prefix}.${name}` : name;
}

/** Compares the fields under two schemas at the same place, recursing into the ones kept or renamed. */
function diffFields(before: unknown, after: unknown, prefix: string, emit: Emit, depth: number): void {
  if (depth > MAX_DEPTH) return;
  const a = childrenOf(before, depth);
  const b = childrenOf(after, depth);
  const base = prefix + (a.suffix === b.suffix ? a.suffix : b.suffix);
  const oldBy = new Map(a.fields.map((f) => [f.name, f]));
  const newBy = new Map(b.fields.map((f) => [f.name, f]));
  const gone = a.fields.filter((f) => !newBy.has(f.name));
  const come = b.fields.filter((f) => !oldBy.has(f.name));
  // A field's place: its index, or the kept siblings right before and after it (robust to removals elsewhere).
  const neighbours = (list: Field[], f: Field, other: Map<string, Field>) => {
    const kept = (i: number, step: number): string => {
      for (let j = i + step; j >= 0 && j < list.length; j += step) if (other.has(list[j]!.name)) return list[j]!.name;
      return '';
    };
    return `${kept(f.position, -1)}|${kept(f.position, 1)}`;
  };
  const renames = pairUp(gone, come, (x, y) => {
    if (typeOf(x.schema) !== typeOf(y.schema)) return null;
    const sim = similarity(x.name, y.name);
    const samePlace = x.position === y.position || neighbours(a.fields, x, newBy) === neighbours(b.fields, y, oldBy);
    if (!samePlace && sim < 0.6) return null;
    return sim + (samePlace ? 1 : 0);
  });
  const renamedOld = new Set(renames.map(([x]) => x));
  const renamedNew = new Set(renames.map(([, y]) => y));
  for (const f of a.fields) {
    const path = join(base, f.name);
    const kept = newBy.get(f.name);
    if (kept) {
      const from = typeOf(f.schema);
      const to = typeOf(kept.schema);
      if (from !== to) emit({ change: 'retyped', field: path, type: to, fromType: from });
      diffFields(f.schema, kept.schema, path, emit, depth + 1);
    } else if (!renamedOld.has(f)) {
      emit({ change: 'removed', field: path, type: typeOf(f.schema) });
    }
  }
  for (const [x, y] of renames) {
    const to = join(base, y.name);
    emit({ change: 'renamed', field: join(base, x.name), to, type: typeOf(y.schema) });
    diffFields(x.schema, y.schema, to, emit, depth + 1);
  }
  for (const f of b.fields) if (!oldBy.has(f.name) && !renamedNew.has(f)) emit({ change: 'added', field: join(base, f.name), type: typeOf(f.schema) });
}

/** The named fields directly under a schema: its properties, or its items' ("[]"), merged over allOf/anyOf/oneOf. */
function childrenOf(schema: unknown, depth: number): { suffix: string; fields: Field[] } {
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return { suffix: '', fields: [] };
  const s = schema as JsonSchema;
  if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) {
    const inner = childrenOf(s.items, depth + 1);
    return { suffix: `[]${inner.suffix}`, fields: inner.fields };
  }
  const fields: Field[] = [];
  const seen = new Set<string>();
  const add = (name: string, sub: unknown) => {
    if (seen.has(name)) return;
    seen.add(name);
    fields.push({ name, schema: (sub && typeof sub === 'object' ? sub : {}) as JsonSchema, position: fields.length });
  };
  if (s.properties && typeof s.properties === 'object') for (const [name, sub] of Object.entries(s.properties as Record<string, unknown>)) add(name, sub);
  let suffix = '';
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    if (!Array.isArray(s[k])) continue;
    for (const variant of s[k] as unknown[]) {
      const inner = childrenOf(variant, depth + 1);
      if (inner.suffix) suffix = inner.suffix;
      for (const f of inner.fields) add(f.name, f.schema);
    }
  }
  return { suffix, fields };
}

/** A short type signature: "string", "string(date)", "integer", "array<string>", "object"; null-ability is not a type change. */
export function typeOf(schema: unknown, depth = 0): string {
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return 'any';
  const s = schema as JsonSchema;
  const types = (Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : []).filter((t) => t !== 'null') as string[];
  if (!types.length) {
    for (const k of ['anyOf', 'oneOf', 'allOf']) {
      const variants = Array.isArray(s[k]) ? (s[k] as JsonSchema[]).filter((v) => !(v && v.type === 'null')) : [];
      if (variants.length === 1) return typeOf(variants[0], depth + 1);
      if (variants.length > 1) return variants.map((v) => typeOf(v, depth + 1)).join('|');
    }
    if (s.properties) return 'object';
    if (Array.isArray(s.enum)) return 'enum';
    return 'any';
  }
  return types
    .map((t) => {
      if (t === 'array') return `array<${typeOf(s.items, depth + 1)}>`;
      if (t === 'string' && typeof s.format === 'string') return `string(${s.format})`;
      return t;
    })
    .join('|');
}

/**
 * Pairs items of `olds` with items of `news` by score (higher is better; null
 * means "never"), best pairs first, each item used once.
 */
function pairUp<T, U>(olds: T[], news: U[], score: (a: T, b: U) => number | null): [T, U][] {
  const candidates: { a: T; b: U; s: number }[] = [];
  for (const a of olds) for (const b of news) {
    const s = score(a, b);
    if (s !== null) candidates.push({ a, b, s });
  }
  candidates.sort((x, y) => y.s - x.s);
  const usedA = new Set<T>();
  const usedB = new Set<U>();
  const out: [T, U][] = [];
  for (const c of candidates) {
    if (usedA.has(c.a) || usedB.has(c.b)) continue;
    usedA.add(c.a);
    usedB.add(c.b);
    out.push([c.a, c.b]);
  }
  return out;
}

/** Name similarity in [0, 1], case and separators ignored; a name containing the other counts as similar (0.75 at least). */
export function similarity(x: string, y: string): number {
  const a = x.toLowerCase().replace(/[^a-z0-9{}/]/g, '');
  const b = y.toLowerCase().replace(/[^a-z0-9{}/]/g, '');
  if (a === b) return 1;
  const longer = Math.max(a.length, b.length);
  if (!longer) return 1;
  const lev = 1 - levenshtein(a, b) / longer;
  const contains = Math.min(a.length, b.length) >= 3 && (a.includes(b) || b.includes(a));
  return contains ? Math.max(lev, 0.75) : lev;
}

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** Path template with parameter names erased, so /x/{year}-{month} matches /x/{y}-{m}. */
export function pathShape(p: string): string {
  return p.replace(/\{[^}]*\}/g, '{}').replace(/\/+$/, '').toLowerCase();
}
