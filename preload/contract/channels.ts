import { z } from 'zod';

/**
 * The request/response channel map. Adding a channel is one entry in
 * {@link channels}: the preload derives its bridge method, main's handler table
 * must implement it (the type requires it), and the renderer gets the types.
 */

/** Version of this IPC contract; bumped when a channel changes incompatibly. */
export const CONTRACT_VERSION = '1.0.0';

/** A channel's request and response schemas. */
export interface ChannelSpec<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  request: Req;
  response: Res;
}

/** Any channel map (the real one is {@link channels}; tests may build their own). */
export type ChannelMap = Record<string, ChannelSpec>;

function channel<Req extends z.ZodType, Res extends z.ZodType>(request: Req, response: Res): ChannelSpec<Req, Res> {
  return { request, response };
}

// Strict so that a typo in a field name is a validation error, not silently ignored.
const noRequest = z.strictObject({});

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

/** THE channel map: channel name -> request and response schema. */
export const channels = {
  /** App version, platform and the active service (label, base URL, demo flag). */
  'app:info': channel(noRequest, appInfoSchema),
  /** Calls GET {base}/api/account/info with the active key and reports reachability. */
  'service:ping': channel(noRequest, pingSchema),
} satisfies ChannelMap;

/** The real contract's channel map type. */
export type Channels = typeof channels;

/** Name of a channel of the real contract. */
export type ChannelName = keyof Channels;

/** Every channel name, in declaration order. */
export const channelNames = Object.keys(channels) as ChannelName[];

/** What a caller passes for channel `C` (before zod defaults/transforms). */
export type RequestOf<C extends ChannelName, M extends ChannelMap = Channels> = z.input<M[C]['request']>;

/** What a handler receives for channel `C` (after zod parsing). */
export type ParsedRequestOf<C extends keyof M, M extends ChannelMap = Channels> = z.output<M[C]['request']>;

/** What channel `C` answers with on success. */
export type ResponseOf<C extends keyof M, M extends ChannelMap = Channels> = z.output<M[C]['response']>;

/** Successful payload of `app:info`. */
export type AppInfo = ResponseOf<'app:info'>;

/** Successful payload of `service:ping`. */
export type PingResult = ResponseOf<'service:ping'>;
