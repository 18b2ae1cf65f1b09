import { createHash } from 'node:crypto';
import { getOpenApiMetadata } from '@asteasolutions/zod-to-openapi';
import { z, type ZodType } from 'zod';

/** A wire schema and the function that turns a record of the source schema into it. */
export interface Reshaped {
  schema: ZodType;
  map(value: unknown): unknown;
}

/** How one answer style respells the records of the source (production) schemas. */
export interface ReshapeRules {
  /** The wire name of a source property. */
  key(name: string): string;
  /** A replacement for one property (e.g. a number sent as text), or null to reshape it normally. */
  property?(name: string, schema: ZodType): Reshaped | null;
  /** Plain days (format date) become UTC date-times at midnight. */
  dateTimes: boolean;
  /** Properties emitted in reverse order of the source schema. */
  reverse: boolean;
  /** Extra properties the source does not have, added to every object (first). */
  extras?: { top?: Record<string, Reshaped>; item?: Record<string, Reshaped> };
}

const identity = (v: unknown) => v;

function innerOf(s: ZodType): ZodType | null {
  const def = (s as unknown as { _zod: { def: { innerType?: ZodType } } })._zod.def;
  return def.innerType ?? null;
}

/**
 * Reshapes a response schema by the rules, walking objects, arrays and nullable/optional
 * wrappers; the mapper walks a value along the same path, so the published schema and the
 * answer cannot disagree. Leaves keep their schema (and its OpenAPI metadata).
 */
export function reshape(schema: ZodType, rules: ReshapeRules, where: 'top' | 'item' | 'inner' = 'top'): Reshaped {
  const meta = getOpenApiMetadata(schema);
  if (rules.dateTimes && meta.format === 'date') {
    const nullable = schema.safeParse(null).success;
    const dt = z.string().openapi({ ...meta, format: 'date-time', example: undefined });
    return {
      schema: nullable ? dt.nullable() : dt,
      map: (v) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v),
    };
  }
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) {
    const inner = reshape(innerOf(schema)!, rules, where);
    const isNull = schema instanceof z.ZodNullable;
    const wrapped = isNull ? inner.schema.nullable() : inner.schema.optional();
    return {
      schema: meta.description ? wrapped.openapi({ description: meta.description }) : wrapped,
      map: (v) => (v === null || v === undefined ? v : inner.map(v)),
    };
  }
  if (schema instanceof z.ZodArray) {
    const el = reshape(schema.element as ZodType, rules, 'item');
    const arr = z.array(el.schema);
    return { schema: meta.description ? arr.openapi({ description: meta.description }) : arr, map: (v) => (v as unknown[]).map(el.map) };
  }
  if (schema instanceof z.ZodObject) return reshapeObject(schema, rules, where, meta.description);
  return { schema, map: identity };
}

function reshapeObject(schema: z.ZodObject, rules: ReshapeRules, where: 'top' | 'item' | 'inner', description?: string): Reshaped {
  const fields = Object.entries(schema.shape as Record<string, ZodType>).map(([name, s]) => ({
    name,
    wire: rules.key(name),
    shaped: rules.property?.(name, s) ?? reshape(s, rules, 'inner'),
  }));
  if (rules.reverse) fields.reverse();
  const extras = Object.entries((where === 'inner' ? undefined : rules.extras?.[where]) ?? {});
  const shape: Record<string, ZodType> = {};
  for (const [name, e] of extras) shape[name] = e.schema;
  for (const f of fields) {
    if (shape[f.wire]) throw new Error(`Two properties map to the wire name ${f.wire}`);
    shape[f.wire] = f.shaped.schema;
  }
  const obj = z.object(shape);
  return {
    schema: description ? obj.openapi({ description }) : obj,
    map: (v) => {
      const src = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [name, e] of extras) out[name] = e.map(src);
      for (const f of fields) if (f.name in src) out[f.wire] = f.shaped.map(src[f.name]);
      return out;
    },
  };
}

/** An extra property holding a short content hash of the record it is added to. */
export function etagExtra(): Reshaped {
  return {
    schema: z.string().openapi({ description: 'Opaque version tag of this record.' }),
    map: (record) => createHash('sha1').update(JSON.stringify(record)).digest('hex').slice(0, 16),
  };
}
