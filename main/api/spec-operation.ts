/** A JSON Schema (draft-07 flavour, JSON-serialisable), as handed to the renderer and to ajv. */
export type JsonSchema = Record<string, unknown>;

/** Where a parameter of a discovered operation goes. */
export type ParameterLocation = 'query' | 'path' | 'header';

/** One operation as the discovered specification describes it. */
export interface SpecOperation {
  method: string;
  /** Path template exactly as the specification writes it. */
  path: string;
  operationId: string | null;
  summary: string | null;
  description: string | null;
  deprecated: boolean;
  /** Object schema of the query, path and header parameters (x-api-key excluded). */
  parameters: JsonSchema;
  parameterLocations: Record<string, ParameterLocation>;
  /** Schema of the JSON body, or null when the operation takes none. */
  body: JsonSchema | null;
  bodyRequired: boolean;
  /** Schema of the successful answer's Data (the whole JSON body when it is not an envelope); null for files or none. */
  response: JsonSchema | null;
}
