/**
 * The tasking order request (contract 2.5) as the form edits it: building the
 * request object in one fixed shape, client-side checks, the canonical form
 * that detects a stale estimate, cadence previews, and model-name help.
 * Pure: no store, no bridge, no clock unless one is passed in.
 */

/** Where the order's area comes from: the AOI (Wkt or GeoJson) or tile search GUIDs. */
export type OrderAreaKind = 'polygon' | 'tiles';

/** Historical (From and To) or recurring (From, To null). */
export type OrderKind = 'historical' | 'recurring';

/** The order form's own fields (the area is passed separately). */
export interface OrderFormValues {
  model: string;
  constellations: string[];
  storageMonths: number | string;
  apiRequests: number | string;
  imageFrequency: number | string;
  referenceDate: string;
  from: string;
  /** End of a historical order; ignored (sent as null) for a recurring one. */
  to: string;
  kind: OrderKind;
}

/** The area of an order as the request carries it: exactly one selector. */
export type OrderArea =
  | { Wkt: string }
  | { GeoJson: unknown }
  | { TileGuid: string }
  | { MiniTileGuid: string }
  | { TileGuids: string[] }
  | { MiniTileGuids: string[] };

/**
 * The area selector of a tile-mode order. One GUID uses the contract's own
 * field (TileGuid / MiniTileGuid, a single GUID); several use the list form
 * (TileGuids / MiniTileGuids) that the service's newer documentation adds.
 */
export function tileArea(guids: readonly string[], mini: boolean): OrderArea {
  if (guids.length === 1) return mini ? { MiniTileGuid: guids[0]! } : { TileGuid: guids[0]! };
  return mini ? { MiniTileGuids: [...guids] } : { TileGuids: [...guids] };
}

/** Property -> reasons, the shape of the service's own validation errors. */
export type FieldErrors = Record<string, string[]>;

/** An allowed ImageFrequency range in days. */
export interface FrequencyRange {
  min: number;
  max: number;
}

/**
 * ImageFrequency range used until the service tells otherwise: the model list
 * carries no range, and the service's public documentation gives 1-7 days.
 */
export const DEFAULT_FREQUENCY_RANGE: Readonly<FrequencyRange> = Object.freeze({ min: 1, max: 7 });

/** The request property names of contract 2.5, in the order the request is written. */
export const ORDER_FIELDS = ['SatelliteConstellations', 'Model', 'StorageMonths', 'ApiRequests', 'ImageFrequency', 'ReferenceDate', 'From', 'To'] as const;

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** True for a real calendar date written YYYY-MM-DD. */
export function isIsoDate(v: unknown): v is string {
  if (typeof v !== 'string' || !DATE_RE.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

function toInt(v: number | string): number {
  if (typeof v === 'number') return v;
  const t = v.trim();
  return t === '' ? Number.NaN : Number(t);
}

/**
 * The order request: the area selector first, then the fields of contract 2.5
 * in a fixed order, To null for a recurring order. The same values always give
 * the same JSON text.
 */
export function buildOrderRequest(form: OrderFormValues, area: OrderArea): Record<string, unknown> {
  const out: Record<string, unknown> = { ...area };
  out.SatelliteConstellations = [...form.constellations];
  out.Model = form.model.trim();
  out.StorageMonths = toInt(form.storageMonths);
  out.ApiRequests = toInt(form.apiRequests);
  out.ImageFrequency = toInt(form.imageFrequency);
  out.ReferenceDate = form.referenceDate.trim();
  out.From = form.from.trim();
  out.To = form.kind === 'recurring' ? null : form.to.trim();
  return out;
}

/** What a model name typed or pasted into the picker resolves to. */
export type ModelNameResult =
  | { ok: true; value: string }
  | { ok: false; message: string; suggestion: string | null };

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Checks a model name against the service's enum values. A display name such
 * as "Stratus-2" (or another spelling or case) is explained and mapped to the
 * enum value to use; it is never sent as typed.
 */
export function resolveModelName(input: string, enumValues: readonly string[]): ModelNameResult {
  const text = input.trim();
  if (!text) return { ok: false, message: 'Choose a model.', suggestion: null };
  if (enumValues.includes(text)) return { ok: true, value: text };
  const match = enumValues.find((v) => squash(v) === squash(text));
  if (match) {
    return {
      ok: false,
      suggestion: match,
      message: `"${text}" is a display name; the service accepts only its enum value ${match}.`,
    };
  }
  const list = enumValues.length ? ` Models of this service: ${enumValues.join(', ')}.` : '';
  return { ok: false, suggestion: null, message: `"${text}" is not a model of this service.${list}` };
}

/** Options of {@link validateOrderForm}. */
export interface OrderCheckOptions {
  /** Enum values of the service's models (empty while they load: the model is then not checked). */
  models: readonly string[];
  /** The model's constellations; required ones must be chosen. */
  constellations: readonly { name: string; optional: boolean }[];
  frequency: FrequencyRange;
}

/** Client-side checks before an estimate, as {property: [reasons]} keyed by request property names. */
export function validateOrderForm(form: OrderFormValues, opts: OrderCheckOptions): FieldErrors {
  const errors: FieldErrors = {};
  const add = (k: string, r: string) => (errors[k] ??= []).push(r);
  if (opts.models.length) {
    const m = resolveModelName(form.model, opts.models);
    if (!m.ok) add('Model', m.message);
  } else if (!form.model.trim()) add('Model', 'Choose a model.');
  if (form.constellations.length === 0) add('SatelliteConstellations', 'Choose at least one constellation.');
  const known = new Set(opts.constellations.map((c) => c.name));
  for (const c of opts.constellations) {
    if (!c.optional && !form.constellations.includes(c.name)) add('SatelliteConstellations', `${c.name} is required by ${form.model}.`);
  }
  if (known.size) {
    for (const c of form.constellations) if (!known.has(c)) add('SatelliteConstellations', `${c} is not offered by ${form.model}.`);
  }
  const int = (name: string, v: number | string, min: number, max?: number) => {
    const n = toInt(v);
    if (!Number.isFinite(n) || !Number.isInteger(n)) add(name, `${name} must be a whole number.`);
    else if (n < min || (max !== undefined && n > max)) add(name, max === undefined ? `${name} must be at least ${min}.` : `${name} must be between ${min} and ${max}.`);
  };
  int('StorageMonths', form.storageMonths, 0);
  int('ApiRequests', form.apiRequests, 0);
  int('ImageFrequency', form.imageFrequency, opts.frequency.min, opts.frequency.max);
  if (!isIsoDate(form.referenceDate)) add('ReferenceDate', 'ReferenceDate must be a date (YYYY-MM-DD).');
  if (!isIsoDate(form.from)) add('From', 'From must be a date (YYYY-MM-DD).');
  if (form.kind === 'historical') {
    if (!form.to.trim()) add('To', 'A historical order needs To; switch to recurring to leave it open.');
    else if (!isIsoDate(form.to)) add('To', 'To must be a date (YYYY-MM-DD).');
    else if (isIsoDate(form.from) && form.from > form.to) add('To', 'To must not be before From.');
  }
  return errors;
}

/** JSON with object keys sorted at every level: equal requests give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => [k, norm(o[k])]));
    }
    return v;
  };
  return JSON.stringify(norm(value));
}

/** Top-level properties whose values differ between two requests (added, removed or changed), sorted. */
export function changedFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => canonicalJson(a[k] ?? null) !== canonicalJson(b[k] ?? null)).sort();
}

/** A deep-frozen copy of JSON data: what was estimated cannot be edited afterwards, not even by mistake. */
export function deepFreeze<T>(value: T): T {
  const copy = structuredClone(value);
  const freeze = (v: unknown): void => {
    if (v && typeof v === 'object' && !Object.isFrozen(v)) {
      Object.freeze(v);
      for (const child of Object.values(v as Record<string, unknown>)) freeze(child);
    }
  };
  freeze(copy);
  return copy;
}

/** "every day", "every 2 days", ... */
export function frequencyLabel(days: number | string): string {
  const n = toInt(days);
  if (!Number.isFinite(n) || n < 1) return 'every – days';
  return n === 1 ? 'every day' : `every ${n} days`;
}

function ms(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

function iso(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/**
 * Cadence dates: ReferenceDate + k x frequency days that fall in [from, to]
 * (the reference date need not lie inside the period), at most `max` of them.
 */
export function cadenceDates(referenceDate: string, frequency: number, from: string, to: string, max = 1000): string[] {
  if (!isIsoDate(referenceDate) || !isIsoDate(from) || !isIsoDate(to) || !Number.isInteger(frequency) || frequency < 1) return [];
  const ref = ms(referenceDate);
  const start = ms(from);
  const end = ms(to);
  if (end < start) return [];
  const step = frequency * DAY_MS;
  const out: string[] = [];
  for (let k = Math.ceil((start - ref) / step), t = ref + k * step; t <= end && out.length < max; k++, t = ref + k * step) out.push(iso(t));
  return out;
}

/** Last day (YYYY-MM-DD) of the UTC month a date falls in. */
export function endOfMonth(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  return iso(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0));
}

/** The cadence preview the form shows under ReferenceDate. */
export interface CadencePreview {
  /** The first dates (up to `limit`). */
  dates: string[];
  /** All dates in the previewed span, when that span is finite. */
  total: number;
  /** The previewed span's end (To, or the end of the current UTC month for a recurring order). */
  until: string;
  /** Dates in the past (up to today): a recurring order backfills them. */
  past: number;
  /** One line for the analyst. */
  summary: string;
}

/** Dates the form would order: a historical order's whole period; a recurring order's up to the end of this UTC month. */
export function cadencePreview(form: Pick<OrderFormValues, 'referenceDate' | 'imageFrequency' | 'from' | 'to' | 'kind'>, today: string, limit = 12): CadencePreview | null {
  const freq = toInt(form.imageFrequency);
  if (!isIsoDate(form.referenceDate) || !isIsoDate(form.from) || !Number.isInteger(freq) || freq < 1) return null;
  if (form.kind === 'historical' && !isIsoDate(form.to)) return null;
  const until = form.kind === 'historical' ? form.to : endOfMonth(today > form.from ? today : form.from);
  const all = cadenceDates(form.referenceDate, freq, form.from, until, 5000);
  const past = all.filter((d) => d <= today).length;
  const every = frequencyLabel(freq);
  const summary = form.kind === 'historical'
    ? `${all.length} date${all.length === 1 ? '' : 's'} from ${form.from} to ${until}, ${every} from ${form.referenceDate}.`
    : `${every[0]!.toUpperCase()}${every.slice(1)} from ${form.referenceDate}: ${all.length} date${all.length === 1 ? '' : 's'} up to ${until}, then continuing every month until cancelled.`;
  return { dates: all.slice(0, limit), total: all.length, until, past, summary };
}

/** The note a recurring order with a past From gets, or null. */
export function backfillNote(form: Pick<OrderFormValues, 'kind' | 'from' | 'imageFrequency'>, today: string): string | null {
  if (form.kind !== 'recurring' || !isIsoDate(form.from) || form.from >= today) return null;
  return `Backfills from ${form.from}, then continues ${frequencyLabel(form.imageFrequency)}.`;
}

/**
 * A narrower ImageFrequency range learnt from the service's own reason, e.g.
 * "ImageFrequency must be between 1 and 7 days for Stratus2"; null when the
 * reasons name no range.
 */
export function frequencyRangeFromReasons(reasons: readonly string[] | undefined): FrequencyRange | null {
  for (const r of reasons ?? []) {
    const m = /between\s+(\d+)\s+and\s+(\d+)/i.exec(r);
    if (m) {
      const min = Number(m[1]);
      const max = Number(m[2]);
      if (min >= 1 && max >= min) return { min, max };
    }
  }
  return null;
}

/** The area selector of a request, or null when it has none. */
export function areaOf(request: Record<string, unknown>): { key: string; value: unknown } | null {
  for (const key of ['Wkt', 'GeoJson', 'TileGuids', 'MiniTileGuids', 'TileGuid', 'MiniTileGuid']) {
    const v = request[key];
    if (v !== undefined && v !== null && v !== '') return { key, value: v };
  }
  return null;
}
