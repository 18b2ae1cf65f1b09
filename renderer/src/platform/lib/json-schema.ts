/**
 * Reading the JSON Schemas of spec-built operations (service:operations) into
 * form fields, checking values against them and building the request object.
 * Only what a form needs: types, nullability, enums, formats, patterns, bounds.
 */

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/** How a property is edited. */
export type FieldKind =
  | 'string'
  | 'date'
  | 'datetime'
  | 'guid'
  | 'enum'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'boolean-string'
  | 'enum-array'
  | 'string-array'
  | 'number-array'
  | 'json';

/** One form field derived from a schema property. */
export interface FieldDescriptor {
  name: string;
  kind: FieldKind;
  required: boolean;
  nullable: boolean;
  description: string | null;
  enumValues: string[];
  defaultValue: unknown;
  example: unknown;
  minimum: number | null;
  maximum: number | null;
  minLength: number | null;
  pattern: string | null;
  schema: JsonSchema;
}

const DATE_PATTERN = /^\^\\d\{4\}-\\d\{2\}-\\d\{2\}/;
const GUID_PATTERN = /\[0-9a-fA-F\]\{8\}-/;

function asSchema(v: unknown): JsonSchema | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonSchema) : null;
}

/** The schema without null alternatives, and whether null was allowed. */
export function unwrapNullable(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  let nullable = schema.nullable === true;
  let s = schema;
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) {
    const parts = alternatives.map(asSchema).filter((x): x is JsonSchema => !!x);
    const nonNull = parts.filter((p) => p.type !== 'null');
    if (nonNull.length < parts.length) nullable = true;
    if (nonNull.length >= 1) s = { ...nonNull[0], description: s.description ?? nonNull[0]!.description };
  }
  if (Array.isArray(s.type)) {
    const types = (s.type as string[]).filter((t) => t !== 'null');
    if (types.length < (s.type as string[]).length) nullable = true;
    s = { ...s, type: types[0] ?? 'string' };
  }
  return { schema: s, nullable };
}

function kindOf(name: string, s: JsonSchema): FieldKind {
  const type = s.type as string | undefined;
  const enumValues = Array.isArray(s.enum) ? (s.enum as unknown[]) : null;
  if (type === 'array') {
    const items = asSchema(s.items) ? unwrapNullable(asSchema(s.items)!).schema : {};
    if (Array.isArray(items.enum)) return 'enum-array';
    if (items.type === 'number' || items.type === 'integer') return 'number-array';
    if (items.type === 'string' || !items.type) return 'string-array';
    return 'json';
  }
  if (type === 'object' || (!type && (s.properties || s.additionalProperties))) return 'json';
  if (type === 'boolean') return 'boolean';
  if (type === 'integer') return 'integer';
  if (type === 'number') return 'number';
  if (enumValues) {
    const strings = enumValues.map(String);
    if (strings.length === 2 && strings.includes('true') && strings.includes('false')) return 'boolean-string';
    return 'enum';
  }
  const format = s.format as string | undefined;
  const pattern = typeof s.pattern === 'string' ? s.pattern : '';
  if (format === 'uuid' || GUID_PATTERN.test(pattern)) return 'guid';
  if (format === 'date') return 'date';
  if (format === 'date-time') return 'datetime';
  if (DATE_PATTERN.test(pattern)) return 'date';
  if (/date$/i.test(name) && typeof s.example === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(s.example)) return 'date';
  return 'string';
}

/** Form fields of an object schema, in property order. */
export function describeFields(schema: JsonSchema | null | undefined): FieldDescriptor[] {
  const root = schema ? unwrapNullable(schema).schema : null;
  const props = asSchema(root?.properties);
  if (!props) return [];
  const required = new Set(Array.isArray(root!.required) ? (root!.required as string[]) : []);
  return Object.entries(props).map(([name, raw]) => {
    const { schema: s, nullable } = unwrapNullable(asSchema(raw) ?? {});
    const kind = kindOf(name, s);
    const items = asSchema(s.items) ? unwrapNullable(asSchema(s.items)!).schema : null;
    const enumSource = kind === 'enum-array' ? items?.enum : s.enum;
    return {
      name,
      kind,
      required: required.has(name),
      nullable,
      description: typeof s.description === 'string' ? s.description : null,
      enumValues: Array.isArray(enumSource) ? (enumSource as unknown[]).map(String) : [],
      defaultValue: s.default,
      example: s.example,
      minimum: typeof s.minimum === 'number' ? s.minimum : null,
      maximum: typeof s.maximum === 'number' ? s.maximum : null,
      minLength: typeof s.minLength === 'number' ? s.minLength : null,
      pattern: typeof s.pattern === 'string' ? s.pattern : null,
      schema: s,
    };
  });
}

/** The value a field starts with: its default, or empty. */
export function initialValue(f: FieldDescriptor): unknown {
  if (f.defaultValue !== undefined && f.defaultValue !== null) {
    if (f.kind === 'json') return JSON.stringify(f.defaultValue);
    return f.kind.endsWith('array') && Array.isArray(f.defaultValue) ? [...f.defaultValue] : f.defaultValue;
  }
  if (f.kind === 'boolean') return false;
  if (f.kind.endsWith('array')) return [];
  return '';
}

/** Starting values for every field, overridden by `values`. */
export function initialValues(fields: FieldDescriptor[], values: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f.name] = f.name in values ? values[f.name] : initialValue(f);
  return out;
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
}

/** The value as the request carries it, or undefined to leave it out. */
export function toRequestValue(f: FieldDescriptor, v: unknown): unknown {
  if (isEmpty(v)) return f.kind === 'boolean' ? false : undefined;
  switch (f.kind) {
    case 'integer':
    case 'number':
      return typeof v === 'number' ? v : Number(String(v).trim());
    case 'string-array':
      return Array.isArray(v) ? v : String(v).split(/[\n,]/).map((x) => x.trim()).filter(Boolean);
    case 'number-array':
      return (Array.isArray(v) ? v : String(v).split(/[\n,]/)).map((x) => Number(String(x).trim())).filter((n) => Number.isFinite(n));
    case 'json':
      if (typeof v !== 'string') return v;
      try {
        return JSON.parse(v);
      } catch {
        return v;
      }
    default:
      return typeof v === 'string' ? v.trim() : v;
  }
}

/** The request object: set fields only, converted to their schema types. */
export function buildBody(fields: FieldDescriptor[], values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = toRequestValue(f, values[f.name]);
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}

/** Client-side checks against the schema, as {property: [reasons]} like the service's own validation errors. */
export function validateValues(fields: FieldDescriptor[], values: Record<string, unknown>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (name: string, reason: string) => (errors[name] ??= []).push(reason);
  for (const f of fields) {
    const raw = values[f.name];
    if (isEmpty(raw)) {
      if (f.required && f.kind !== 'boolean') add(f.name, `${f.name} is required.`);
      continue;
    }
    const v = toRequestValue(f, raw);
    if ((f.kind === 'integer' || f.kind === 'number') && typeof v === 'number') {
      if (!Number.isFinite(v)) add(f.name, `${f.name} must be a number.`);
      else if (f.kind === 'integer' && !Number.isInteger(v)) add(f.name, `${f.name} must be a whole number.`);
      if (f.minimum != null && v < f.minimum) add(f.name, `${f.name} must be at least ${f.minimum}.`);
      if (f.maximum != null && v > f.maximum) add(f.name, `${f.name} must be at most ${f.maximum}.`);
    }
    if (typeof v === 'string') {
      if (f.minLength != null && v.length < f.minLength) add(f.name, `${f.name} must have at least ${f.minLength} characters.`);
      if (f.enumValues.length && f.kind === 'enum' && !f.enumValues.includes(v)) add(f.name, `${f.name} must be one of ${f.enumValues.join(', ')}.`);
      if (f.pattern) {
        let re: RegExp | null = null;
        try {
          re = new RegExp(f.pattern);
        } catch {
          re = null;
        }
        if (re && !re.test(v)) {
          const hint = f.kind === 'date' ? ' (YYYY-MM-DD)' : f.kind === 'guid' ? ' (a GUID such as 8c60a59a-ae13-49e9-8e4f-157f6bf6d0ed)' : '';
          add(f.name, `${f.name} has the wrong format${hint}.`);
        }
      }
    }
    if (f.kind === 'json' && typeof v === 'string') add(f.name, `${f.name} must be valid JSON.`);
  }
  return errors;
}
