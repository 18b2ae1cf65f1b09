import { z } from 'zod';
import { MAX_ID, MAX_PATH, boundedText, jsonRecord } from './bounds';

/**
 * What every feature's channels are written with: a channel's spec and the requests and answers
 * several features share. Each feature declares its channels in its own file of this folder
 * (`<feature>.ts`); channels.ts joins them into the one channel map.
 */

/** Version of this IPC contract; bumped when a channel changes incompatibly. */
export const CONTRACT_VERSION = '1.0.0';

/** A channel's request and response schemas. */
export interface ChannelSpec<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  request: Req;
  response: Res;
}

/** Any channel map (the real one is channels.ts `channels`; tests may build their own). */
export type ChannelMap = Record<string, ChannelSpec>;

/** One channel's spec. */
export function channel<Req extends z.ZodType, Res extends z.ZodType>(request: Req, response: Res): ChannelSpec<Req, Res> {
  return { request, response };
}

/** A request without fields: strict so that a typo in a field name is a validation error, not silently ignored. */
export const noRequest = z.strictObject({});

/** An id of one of main's records (a profile, a job, a raster, a watch). */
export const id = () => boundedText(MAX_ID).min(1, 'id is required.');

/** A request naming one record by its id. */
export const byId = z.strictObject({ id: id() });

/** A folder or file path. */
export const folder = () => boundedText(MAX_PATH);

/** Any JSON object: service payloads whose fields the contract leaves open are passed through and shown generically. */
export const recordSchema = z.record(z.string(), z.unknown());

/** A request carrying one service body; main validates it against the contract and the discovered specification. */
export const serviceBody = z.strictObject({ request: jsonRecord() });

/** An answer carrying the service's data as it sent it. */
export const data = z.object({ data: z.unknown() });
