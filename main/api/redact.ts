import { AppError } from '../../common/errors.js';
import { redactionMark, parseRedactionMark } from '../../preload/contract/redaction.js';
import type { SecretRegistry } from '../platform/secrets.js';

/**
 * Redaction of API keys: the one place main masks keys out of text and data.
 *
 * The production service's account info answers with the API key itself, and
 * any service may echo a key in a message. So main masks, before anything
 * reaches IPC, the renderer, a log, a stored request or a file:
 * - every value equal to (or containing) a key main holds: any profile's key,
 *   and the embedded demo service's key (the app's {@link SecretRegistry},
 *   main/platform/secrets.ts, which every function here takes as a parameter);
 * - every field that *is* the key, whatever its value: recognised by its name
 *   (key, apiKey, x-api-key, ...) or because the service's specification marks
 *   it as the key (see {@link keyFieldsOfSchema}).
 * A key is replaced by a mark such as "•••• 7f3a" (the last four characters,
 * as the profile list already shows them; never more).
 *
 * The API client applies {@link redactServiceData} to every answer it parses,
 * the dispatcher and the app's event sink apply {@link sealForRenderer} as a last
 * line of defence; the app's log lines, the log file and diagnostics go through the
 * registry's own `redactText` (main/logging/redact.ts adds the shapes a key travels in).
 *
 * A value nested deeper than {@link MAX_REDACTION_DEPTH} (a service answer) or
 * {@link MAX_SEALED_DEPTH} (what leaves main for a window) is never passed on
 * half-walked: it is refused whole ({@link TooDeepError}), so nesting cannot
 * hide a key from the masking.
 */

/** The deepest nesting main walks (service answers are far shallower); a deeper value is refused as too deep. */
export const MAX_REDACTION_DEPTH = 64;
const MAX_DEPTH = MAX_REDACTION_DEPTH;
/** What leaves main for a window may be a little deeper: the app's own envelope around a service answer. */
export const MAX_SEALED_DEPTH = MAX_REDACTION_DEPTH + 16;

/** A value nested deeper than {@link MAX_REDACTION_DEPTH}: refused whole, since it cannot be checked for keys. */
export class TooDeepError extends AppError<'io'> {
  override readonly name = 'TooDeepError';
  constructor(what = 'The data', limit = MAX_REDACTION_DEPTH) {
    super('io', `${what} is nested too deep (more than ${limit} levels) to be checked for API keys, so Swath refused it.`);
  }
}

/** A value that still held a registered key after masking (the serialised check of {@link sealForRenderer}). */
export class SecretLeakError extends AppError<'io'> {
  override readonly name = 'SecretLeakError';
  constructor(what = 'The data') {
    super('io', `${what} still held an API key after masking, so Swath refused to pass it on.`);
  }
}

// Normalised (lower case, letters and digits only) names of fields that hold a credential.
const KEY_FIELD_NAMES = new Set(['key', 'apikey', 'xapikey', 'apikeyvalue', 'secret', 'apisecret', 'secretkey', 'accesskey', 'apitoken', 'accesstoken', 'bearertoken', 'password']);

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Whether a field's name says it is the API key itself: "Key", "apiKey",
 * "api_key", "x-api-key", "UserApiKey", "SecretKey"... but not "KeyName",
 * "KeyEnding" or "KeyId", which describe a key without being it.
 */
export function isKeyFieldName(name: string): boolean {
  const n = normalizeName(name);
  return KEY_FIELD_NAMES.has(n) || n.endsWith('apikey');
}

const MENTIONS_KEY_RE = /\b(?:api[\s_-]?key|x-api-key|access[\s_-]?key|secret)\b/i;
// A description of something about the key rather than the key: its end, name, id, expiry...
const ABOUT_KEY_RE = /\b(?:last|first|ending|end|suffix|prefix|name|label|id|identifier|hint|masked|hash|count|number|limits?|expir\w*|created|date|per)\b/i;

/**
 * Whether a property schema marks the property as the key: `format: password`,
 * an `x-secret`/`x-sensitive` flag, or a description that says it is the API key
 * (e.g. "The API key itself"), as opposed to one about the key ("Last four
 * characters of the key", "Requests allowed per API key").
 */
export function isKeySchema(name: string, schema: unknown): boolean {
  if (isKeyFieldName(name)) return true;
  if (!schema || typeof schema !== 'object') return false;
  const s = schema as Record<string, unknown>;
  if (s.format === 'password' || s['x-secret'] === true || s['x-sensitive'] === true) return true;
  const text = [s.description, s.title].filter((t): t is string => typeof t === 'string').join(' ');
  return MENTIONS_KEY_RE.test(text) && !ABOUT_KEY_RE.test(text);
}

/** Names of the properties a (dereferenced) response schema marks as the key, at any depth. */
export function keyFieldsOfSchema(schema: unknown, into: Set<string> = new Set(), depth = 0, seen = new WeakSet<object>()): Set<string> {
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH || seen.has(schema)) return into;
  seen.add(schema);
  const s = schema as Record<string, unknown>;
  if (s.properties && typeof s.properties === 'object') {
    for (const [name, prop] of Object.entries(s.properties as Record<string, unknown>)) {
      if (isKeySchema(name, prop)) into.add(name);
      keyFieldsOfSchema(prop, into, depth + 1, seen);
    }
  }
  for (const k of ['items', 'additionalProperties', 'not']) keyFieldsOfSchema(s[k], into, depth + 1, seen);
  for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[k])) for (const sub of s[k] as unknown[]) keyFieldsOfSchema(sub, into, depth + 1, seen);
  return into;
}

/** Options of {@link redactDeep}. */
interface DeepOptions {
  registry: SecretRegistry;
  /** Names of fields that are the key whatever their value; null: values only. */
  keyField: ((name: string) => boolean) | null;
  /** The deepest nesting walked; deeper is a {@link TooDeepError}. */
  maxDepth: number;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!v || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function redactDeep(value: unknown, o: DeepOptions, depth: number): unknown {
  if (typeof value === 'string') return o.registry.size ? o.registry.redactText(value) : value;
  const walked = Array.isArray(value) || isPlainObject(value);
  if (walked && depth > o.maxDepth) throw new TooDeepError('The data', o.maxDepth);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, o, depth + 1));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const name = o.registry.size ? o.registry.redactText(k) : k;
    if (o.keyField && typeof v === 'string' && o.keyField(k)) out[name] = parseRedactionMark(v) ? v : redactionMark(v);
    else out[name] = redactDeep(v, o, depth + 1);
  }
  return out;
}

/**
 * Masks an answer of the service: every registered key wherever it appears, and
 * the value of every field that is the key (by its name, or listed in `keyFields`
 * because the specification marks it). Returns a fresh value; the input is untouched.
 * Throws {@link TooDeepError} for a value nested deeper than {@link MAX_REDACTION_DEPTH}.
 */
export function redactServiceData<T>(value: T, registry: SecretRegistry, keyFields: ReadonlySet<string> = new Set()): T {
  const keyField = (name: string) => keyFields.has(name) || isKeyFieldName(name);
  return redactDeep(value, { registry, keyField, maxDepth: MAX_DEPTH }, 0) as T;
}

/**
 * Masks every registered key out of any value (strings, property names, nested
 * arrays and objects), where field names are the app's own (an operation's "key"
 * is not a secret). Throws {@link TooDeepError} for a value nested deeper than
 * {@link MAX_REDACTION_DEPTH}.
 */
export function redactSecretsDeep<T>(value: T, registry: SecretRegistry, maxDepth = MAX_DEPTH): T {
  return redactDeep(value, { registry, keyField: null, maxDepth }, 0) as T;
}

/**
 * The last line of defence on everything that leaves main for a window (IPC results,
 * errors, events): masks every registered key ({@link redactSecretsDeep}), then checks
 * the value's JSON text for every registered key, belt and braces, so a value the walk
 * does not enter (a class instance, a `toJSON`) cannot carry one out either. Throws
 * {@link TooDeepError} or {@link SecretLeakError}; `what` names the value in the message.
 */
export function sealForRenderer<T>(value: T, registry: SecretRegistry, what = 'The data'): T {
  let out: T;
  try {
    out = redactSecretsDeep(value, registry, MAX_SEALED_DEPTH);
  } catch (error) {
    if (error instanceof TooDeepError) throw new TooDeepError(what, MAX_SEALED_DEPTH);
    throw error;
  }
  if (registry.size) {
    let text: string | undefined;
    try {
      text = JSON.stringify(out);
    } catch {
      throw new SecretLeakError(what);
    }
    if (text !== undefined && registry.leaksInJson(text)) throw new SecretLeakError(what);
  }
  return out;
}
