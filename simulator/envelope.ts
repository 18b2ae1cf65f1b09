/** Error codes the service uses (service-facts.md); 992 marks validation errors. */
export const Codes = {
  validation: 992,
  invalidRequest: 993,
  noCredit: 994,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  noImagery: 1002,
  tooManyRequests: 1003,
  areaTooLarge: 1004,
  tooManyBands: 1005,
  notCovered: 1006,
  internal: 500,
} as const;

/** Property name to list of reasons, the shape of Data on a validation failure. */
export type FieldErrors = Record<string, string[]>;

/** The JSON envelope every response uses: all three keys always present, as the production service sends them. */
export interface Envelope<T> {
  Data: T | null;
  Succeeded: boolean;
  Error: { Message: string; Code: number } | null;
}

/** Wraps a successful payload (Error is null). */
export function ok<T>(data: T): Envelope<T> {
  return { Data: data, Succeeded: true, Error: null };
}

/** A failure that the server turns into an envelope with the given HTTP status. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data: FieldErrors | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The same failure with the property names of its reasons respelled (an answer style's request names). */
  renameFields(wireName: (name: string) => string): ServiceError {
    if (!this.data) return this;
    const data: FieldErrors = {};
    for (const [k, reasons] of Object.entries(this.data)) (data[wireName(k)] ??= []).push(...reasons);
    return new ServiceError(this.status, this.code, this.message, data, this.headers);
  }

  /** The envelope body for this failure. */
  toEnvelope(): Envelope<FieldErrors> {
    return { Data: this.data, Succeeded: false, Error: { Message: this.message, Code: this.code } };
  }
}

/** A 400 with Code 992 and the property -> reasons map. */
export function validationError(fields: FieldErrors): ServiceError {
  return new ServiceError(400, Codes.validation, 'One or more validation errors occurred.', fields);
}

/** Collects field reasons and throws one validation error for all of them. */
export class FieldErrorBag {
  readonly fields: FieldErrors = {};

  add(field: string, reason: string): void {
    (this.fields[field] ??= []).push(reason);
  }

  merge(other: FieldErrors): void {
    for (const [k, reasons] of Object.entries(other)) for (const r of reasons) this.add(k, r);
  }

  get empty(): boolean {
    return Object.keys(this.fields).length === 0;
  }

  throwIfAny(): void {
    if (!this.empty) throw validationError(this.fields);
  }
}
