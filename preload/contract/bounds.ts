import { z } from 'zod';

/**
 * Upper bounds of what the renderer may send. Every string, list and open JSON value of a request
 * has one, far above what an analyst's real request holds, so a compromised page cannot make main
 * allocate, walk, store or send without limit; a request past one is refused before its handler
 * runs, naming the field (`fields` of the validation error) and the bound.
 */

/** An id main handed out (a profile, job, raster, watch, change layer: UUIDs and the like) or an operation's key. */
export const MAX_ID = 200;
/** A name or label the analyst types or picks: a profile, a model, a constellation, a band list. */
export const MAX_NAME = 1_000;
/** A URL (a service's base URL). */
export const MAX_URL = 4_096;
/** A file or folder path (Windows' long paths reach 32 767 characters). */
export const MAX_PATH = 32_767;
/** An API key (the keychain takes at most 1 024 characters and says so; this bounds what reaches that check). */
export const MAX_SECRET = 8_192;
/** A date or date-time (YYYY-MM-DD, or ISO 8601 with a time and zone). */
export const MAX_DATE = 64;
/** An area as WKT text (a polygon of some 100 000 vertices). */
export const MAX_AREA_TEXT = 2_000_000;
/** An order's JSON payload as `tasking:estimate` gave it (its area and fields). */
export const MAX_PAYLOAD_TEXT = 4_000_000;
/** A short list the analyst picks from (constellations). */
export const MAX_LIST = 100;
/** Rasters or files picked at once (twice the library size the benchmarks run: 100 000 rasters). */
export const MAX_SELECTION = 200_000;
/** Features written to one GeoJSON file. */
export const MAX_FEATURES = 100_000;

/**
 * An open JSON value (a service body or its parameters, a GeoJSON area, export features): how deep,
 * how many values (numbers, strings, items, fields) and how many characters (strings and field
 * names) one may hold.
 */
export const JSON_LIMITS = { depth: 64, values: 1_000_000, chars: 8_000_000 } as const;

/** The validation message of a string past `max` characters. */
export const tooLong = (max: number): string => `At most ${max} characters.`;
/** The validation message of a list past `max` items. */
export const tooMany = (max: number): string => `At most ${max} items.`;

/** A string of at most `max` characters. */
export const boundedText = (max: number) => z.string().max(max, tooLong(max));

interface Frame {
  value: unknown;
  depth: number;
  key: PropertyKey;
  parent: Frame | null;
}

function pathOf(frame: Frame): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) path.unshift(f.key);
  return path;
}

/**
 * What makes a value other than a bounded JSON value ({@link JSON_LIMITS}), with where (its path
 * inside the value), or null. Walks without recursion and stops at the first bound passed, before
 * reading past it.
 */
export function jsonProblem(value: unknown): { path: PropertyKey[]; message: string } | null {
  const stack: Frame[] = [{ value, depth: 0, key: '', parent: null }];
  let values = 0;
  let chars = 0;
  const tooManyValues = { path: [], message: `Holds more than ${JSON_LIMITS.values} values (numbers, strings, items and fields).` };
  const tooMuchText = (f: Frame) => ({ path: pathOf(f), message: `Its text runs past ${JSON_LIMITS.chars} characters in all.` });
  while (stack.length) {
    const f = stack.pop()!;
    if (++values > JSON_LIMITS.values) return tooManyValues;
    const v = f.value;
    if (typeof v === 'string') {
      chars += v.length;
      if (chars > JSON_LIMITS.chars) return tooMuchText(f);
      continue;
    }
    if (v === null || v === undefined || typeof v === 'number' || typeof v === 'boolean') continue;
    const plain = typeof v === 'object' && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);
    if (!plain) return { path: pathOf(f), message: 'Not a JSON value (a number, string, boolean, null, list or object).' };
    if (f.depth >= JSON_LIMITS.depth) return { path: pathOf(f), message: `Nested more than ${JSON_LIMITS.depth} levels deep.` };
    if (Array.isArray(v)) {
      if (values + stack.length + v.length > JSON_LIMITS.values) return tooManyValues;
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: f.depth + 1, key: i, parent: f });
      continue;
    }
    const keys = Object.keys(v);
    if (values + stack.length + keys.length > JSON_LIMITS.values) return tooManyValues;
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      chars += key.length;
      if (chars > JSON_LIMITS.chars) return tooMuchText(f);
      stack.push({ value: (v as Record<string, unknown>)[key], depth: f.depth + 1, key, parent: f });
    }
  }
  return null;
}

/** Marks a schema whose whole value {@link jsonProblem} bounds (what test/preload/request-bounds.test.ts looks for). */
export const JSON_BOUNDED = { bounds: 'json' } as const;

/** Adds the {@link JSON_LIMITS} to a schema: the issue names the field inside the value that passed one. */
export function jsonBounded<T extends z.ZodType>(schema: T) {
  return schema
    .superRefine((value, ctx) => {
      const problem = jsonProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
    })
    .meta(JSON_BOUNDED);
}

/** Any JSON value within {@link JSON_LIMITS} (a service body). */
export const jsonValue = () => jsonBounded(z.unknown());

/** A JSON object within {@link JSON_LIMITS} whose fields the contract leaves open (a service request, a GeoJSON geometry). */
export const jsonRecord = () => jsonBounded(z.record(z.string(), z.unknown()));
