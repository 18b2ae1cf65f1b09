import { getOpenApiMetadata } from '@asteasolutions/zod-to-openapi';
import { z, type ZodType } from 'zod';

// How requests are read before their schema checks them, as the production service's
// ASP.NET binding reads them: property names and enum values in any case, and nulls,
// empty lists and empty query values meaning "not given".

function innermost(s: ZodType): ZodType {
  let cur = s as unknown as { _zod: { def: { innerType?: unknown } } };
  while (cur._zod.def.innerType) cur = cur._zod.def.innerType as typeof cur;
  return cur as unknown as ZodType;
}

/** The allowed string values of a field (a zod enum, or a string published with an enum), or null. */
function enumValues(s: ZodType): string[] | null {
  const inner = innermost(s);
  if (inner instanceof z.ZodEnum) return (inner.options as unknown[]).map(String);
  const meta = getOpenApiMetadata(s).enum ?? getOpenApiMetadata(inner).enum;
  return Array.isArray(meta) && meta.every((v) => typeof v === 'string') ? (meta as string[]) : null;
}

/** The enum value a string names in any case; the string itself when none does (the schema then refuses it). */
function canonical(values: string[], v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const lower = v.toLowerCase();
  return values.find((x) => x.toLowerCase() === lower) ?? v;
}

function canonicalEnum(s: ZodType, v: unknown): unknown {
  const values = enumValues(s);
  if (values) return canonical(values, v);
  const inner = innermost(s);
  if (inner instanceof z.ZodArray && Array.isArray(v)) {
    const item = enumValues(inner.element as ZodType);
    if (item) return v.map((x) => canonical(item, x));
  }
  return v;
}

const notGiven = (v: unknown) => v === null || v === undefined || (Array.isArray(v) && v.length === 0);

/** Reads a JSON body for a schema: names matched case-insensitively, nulls and [] dropped, enum values canonical. */
export function normalizeBody(raw: Record<string, unknown>, schema: ZodType): Record<string, unknown> {
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, ZodType>) : {};
  const byLower = new Map(Object.keys(shape).map((k) => [k.toLowerCase(), k]));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (notGiven(v)) continue;
    const name = byLower.get(k.toLowerCase()) ?? k;
    out[name] = shape[name] ? canonicalEnum(shape[name], v) : v;
  }
  return out;
}

/** Reads query parameters for a schema the same way (an empty value is not given). */
export function normalizeQuery(params: URLSearchParams, schema: z.ZodObject): Record<string, string> {
  return normalizeBody(Object.fromEntries([...params].filter(([, v]) => v !== '')), schema) as Record<string, string>;
}
