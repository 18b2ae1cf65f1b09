import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldErrors } from './errors.js';
import { safePatternEngine, type PatternEngine } from './safe-pattern.js';
import type { JsonSchema } from './spec.js';

// ajv-formats is CommonJS: depending on the loader its default import is the plugin or the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/**
 * Validates request values against the JSON Schemas of discovered operations and
 * reports failures in the service's property -> reasons shape.
 */
export class SchemaValidator {
  // The schemas come from a remote specification: its `pattern`s run only when they cannot backtrack for long.
  private readonly patterns: PatternEngine;
  // Bodies are checked as given; parameters travel as strings, so they are coerced first. Each is
  // built on its first use: a client that never validates one kind does not pay for its instance.
  private bodies: Ajv | null = null;
  private params: Ajv | null = null;
  private readonly cache = new WeakMap<JsonSchema, ValidateFunction>();

  /** `notice` hears about each pattern of the specification that is not applied, and why. */
  constructor(notice?: (message: string) => void) {
    this.patterns = safePatternEngine(notice);
  }

  private makeAjv(coerce: boolean): Ajv {
    const ajv = new Ajv({
      allErrors: true, strict: false, coerceTypes: coerce ? 'array' : false, logger: false, validateSchema: false,
      code: { regExp: this.patterns },
    });
    addFormats(ajv);
    return ajv;
  }

  /** Validates a JSON body; returns the reasons keyed by top-level property, or null when valid. */
  body(schema: JsonSchema, value: unknown): FieldErrors | null {
    return this.run((this.bodies ??= this.makeAjv(false)), schema, value, 'Body');
  }

  /** Validates (and coerces in place) a parameters object; returns reasons keyed by parameter name, or null. */
  parameters(schema: JsonSchema, value: Record<string, unknown>): FieldErrors | null {
    return this.run((this.params ??= this.makeAjv(true)), schema, value, 'Query');
  }

  private run(ajv: Ajv, schema: JsonSchema, value: unknown, rootKey: string): FieldErrors | null {
    let validate = this.cache.get(schema);
    if (!validate) {
      try {
        validate = ajv.compile(schema);
      } catch {
        // A schema ajv cannot compile must not block the call: the service still validates.
        return null;
      }
      this.cache.set(schema, validate);
    }
    if (validate(value)) return null;
    return toFieldErrors(validate.errors ?? [], rootKey);
  }
}

/** Turns ajv errors into the service's shape: key = top-level property, reason = readable text. */
export function toFieldErrors(errors: ErrorObject[], rootKey: string): FieldErrors {
  const out: FieldErrors = {};
  const add = (k: string, r: string) => {
    const list = (out[k] ??= []);
    if (!list.includes(r)) list.push(r);
  };
  // anyOf/oneOf add a summary error beside the branch errors; the branch errors say more.
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  for (const e of useful.length ? useful : errors) {
    const segments = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (e.keyword === 'required' && segments.length === 0) {
      const name = String((e.params as { missingProperty?: unknown }).missingProperty);
      add(name, `The ${name} field is required.`);
      continue;
    }
    if (e.keyword === 'additionalProperties' && segments.length === 0) {
      const name = String((e.params as { additionalProperty?: unknown }).additionalProperty);
      add(name, `${name} is not a property of this request.`);
      continue;
    }
    const key = segments[0] ?? rootKey;
    const reason = describe(e);
    add(key, segments.length > 1 ? `${segments.join('.')}: ${reason}` : reason);
  }
  return out;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'enum':
      return `Must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`;
    case 'type':
      return `Must be of type ${Array.isArray(p.type) ? (p.type as string[]).join(' or ') : String(p.type)}.`;
    case 'format':
      return `Must be a valid ${String(p.format)}.`;
    case 'pattern':
      return `Does not have the expected form (${String(p.pattern)}).`;
    case 'required':
      return `${String(p.missingProperty)} is required.`;
    default: {
      const m = e.message ?? 'is invalid';
      return `${m.charAt(0).toUpperCase()}${m.slice(1)}.`;
    }
  }
}
