import type { z } from 'zod';
import { aboutChannels } from './about';
import { accountChannels } from './account';
import { analysisChannels } from './analysis';
import { billingChannels } from './billing';
import { briefChannels } from './brief';
import type { ChannelMap } from './channel';
import { connectionChannels } from './connection';
import { diagnosticsChannels } from './diagnostics';
import { downloadChannels } from './downloads';
import { exportChannels } from './exports';
import { fieldChannels } from './fields';
import { imageryChannels } from './imagery';
import { libraryChannels } from './library';
import { notificationChannels } from './notifications';
import { policyChannels } from './policy';
import { profileChannels } from './profiles';
import { settingsChannels } from './settings';
import { spendChannels } from './spend';
import { taskingChannels } from './tasking';
import { teamChannels } from './team';
import { updateChannels } from './updates';
import { watchChannels } from './watches';
import { timelapseChannels } from './timelapse';

/**
 * The request/response channel map, joined from the features' channels: each feature declares its
 * channels and their schemas in its own file of this folder (`<feature>.ts`, named as the feature's
 * folder in main and the renderer), and this map spreads them. Adding a channel is one entry in its
 * feature's map: the preload derives its bridge method, main's handler table must implement it (the
 * type requires it), and the renderer gets the types. A name two features declared would be a
 * silent override in the spread; test/preload/contract.test.ts checks that each name has one feature.
 */

export { CONTRACT_VERSION, recordSchema, type ChannelMap, type ChannelSpec } from './channel';

/** THE channel map: channel name -> request and response schema. */
export const channels = {
  ...connectionChannels,
  ...profileChannels,
  ...accountChannels,
  ...billingChannels,
  ...imageryChannels,
  ...taskingChannels,
  ...downloadChannels,
  ...libraryChannels,
  ...exportChannels,
  ...settingsChannels,
  ...aboutChannels,
  ...policyChannels,
  ...diagnosticsChannels,
  ...updateChannels,
  ...analysisChannels,
  ...watchChannels,
  ...spendChannels,
  ...notificationChannels,
  ...teamChannels,
  ...fieldChannels,
  /** The one-page brief (./brief). */
  ...briefChannels,
  /** Films (./timelapse). */
  ...timelapseChannels,
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
