import { z } from 'zod';
import { MAX_ID, boundedText, jsonRecord, jsonValue } from './bounds';
import { CONTRACT_VERSION, channel, data, noRequest, recordSchema } from './channel';

/** Schemas of the connection's channels: the app and its active service (app:info, service:*). */

/** What the renderer may know about the active service: never the key. */
export const serviceSummarySchema = z.object({
  label: z.string(),
  baseUrl: z.string(),
  demo: z.boolean(),
});

/** Response of `app:info`. */
export const appInfoSchema = z.object({
  version: z.string(),
  platform: z.string(),
  service: serviceSummarySchema,
  contractVersion: z.literal(CONTRACT_VERSION),
});

/** Response of `service:ping`. */
export const pingSchema = z.object({
  reachable: z.boolean(),
  latencyMs: z.number().nonnegative(),
});

/** The contract version notice shown when the service publishes another version than the app was built for. */
export const contractNoticeSchema = z.object({ expected: z.string(), actual: z.string().nullable(), message: z.string() });

const operationRefSchema = z.object({ method: z.string(), path: z.string(), operationId: z.string().nullable() });

/** What changed in the service's specification since the copy cached for the same base URL. */
export const specDriftSchema = z.object({
  previous: z.object({ version: z.string().nullable(), fetchedAt: z.string() }),
  current: z.object({ version: z.string().nullable(), fetchedAt: z.string() }),
  detectedAt: z.string(),
  operations: z.object({
    added: z.array(operationRefSchema),
    removed: z.array(operationRefSchema),
    renamed: z.array(z.object({ from: operationRefSchema, to: operationRefSchema })),
  }),
  fields: z.array(z.object({
    operation: z.string(),
    section: z.enum(['parameter', 'body', 'response']),
    change: z.enum(['added', 'removed', 'renamed', 'retyped']),
    field: z.string(),
    to: z.string().optional(),
    type: z.string(),
    fromType: z.string().optional(),
  })),
});

/** State of the active service connection. */
export const serviceStatusSchema = z.object({
  profileId: z.string(),
  label: z.string(),
  baseUrl: z.string().nullable(),
  demo: z.boolean(),
  state: z.enum(['idle', 'connecting', 'online', 'offline']),
  detail: z.string().optional(),
  contractNotice: contractNoticeSchema.nullable(),
  specDrift: specDriftSchema.nullable(),
  specSource: z.enum(['network', 'cache']).nullable(),
  concurrency: z.number().int(),
  limits: z.object({ maxCompositeAreaKm2: z.number().nullable(), maxTotalBands: z.number().nullable() }),
});

/** An operation built from the service's specification, with JSON Schemas the renderer draws a form from. */
export const openOperationSchema = z.object({
  key: z.string(),
  operationId: z.string().nullable(),
  method: z.string(),
  path: z.string(),
  summary: z.string().nullable(),
  deprecated: z.boolean(),
  parameters: recordSchema,
  body: recordSchema.nullable(),
  bodyRequired: z.boolean(),
});

/** The connection's channels (spread into the contract's channel map). */
export const connectionChannels = {
  /** App version, platform and the active service (label, base URL, demo flag). */
  'app:info': channel(noRequest, appInfoSchema),
  /** Calls account info with the active key and reports reachability. */
  'service:ping': channel(noRequest, pingSchema),
  /** Connection state, contract notice and limits of the active service. */
  'service:status': channel(noRequest, serviceStatusSchema),
  /** Drops the cached connection and connects again (reloads the specification and models). */
  'service:reconnect': channel(noRequest, serviceStatusSchema),
  /** Operations built from the discovered specification (orders, tiles, products, plans, vouchers), with their schemas. */
  'service:operations': channel(noRequest, z.object({ operations: z.array(openOperationSchema) })),
  /** Calls one spec-built operation with parameters and body validated against the specification. */
  'service:call': channel(z.strictObject({ key: boundedText(MAX_ID).min(1), params: jsonRecord().optional(), body: jsonValue().optional() }), data),
};
