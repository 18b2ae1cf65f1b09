import { updateFeedProblem, type PolicyState, type UpdateChannel } from '../policy';

/**
 * Where updates come from: the admin policy's URL wins over the one baked in at
 * build time (SWATH_UPDATE_URL); with neither, updates are off and the UI says
 * why. A feed must be https (plain http is refused, on loopback too), or updates stay off. The channel is the policy's when it fixes one, else the user's choice.
 */

/** The feed URL given at build time (electron.vite.config.ts defines it from SWATH_UPDATE_URL; tests and tsx read the environment). */
export const BUILD_UPDATE_URL: string = process.env.SWATH_BUILD_UPDATE_URL ?? '';

/** Windows publisher names (certificate subject CN) an update's signature must match, baked in at build time. */
export const BUILD_PUBLISHER_NAMES: string[] = (process.env.SWATH_BUILD_PUBLISHER_NAME ?? '').split(';').map((n) => n.trim()).filter(Boolean);

/** The resolved update settings. */
export interface UpdateConfig {
  enabled: boolean;
  /** Why updates are off, or where they come from; shown in Settings. */
  reason: string;
  url: string | null;
  source: 'policy' | 'build' | null;
  channel: UpdateChannel;
  channelFixed: boolean;
}

/** Inputs of {@link resolveUpdateConfig}. */
export interface UpdateInputs {
  buildUrl: string;
  policy: PolicyState;
  /** The channel the user chose in Settings, if any. */
  userChannel: UpdateChannel | null;
  /** Installed builds only: a development run has no installer to replace. */
  packaged: boolean;
}

/** Decides whether, from where and on which channel Swath updates itself. */
export function resolveUpdateConfig(inputs: UpdateInputs): UpdateConfig {
  const fixed = inputs.policy.policy.updates;
  const channel: UpdateChannel = fixed?.channel ?? inputs.userChannel ?? 'stable';
  const channelFixed = fixed?.channel !== undefined;
  const base = { channel, channelFixed };
  if (fixed?.enabled === false) return { ...base, enabled: false, url: null, source: 'policy', reason: 'Updates are turned off by your organisation’s policy.' };
  const fromPolicy = fixed?.url ?? null;
  const url = fromPolicy ?? (inputs.buildUrl.trim() || null);
  if (!url) {
    return { ...base, enabled: false, url: null, source: null, reason: 'Updates are off: this build has no update server (SWATH_UPDATE_URL) and no policy sets one (updates.url).' };
  }
  const source = fromPolicy ? 'policy' : 'build';
  // https only, on loopback too: the feed also serves the sha512 the download is checked against.
  const problem = /^https?:\/\/[^/]/i.test(url) ? updateFeedProblem(url) : `the update URL ${url} is not an https URL.`;
  if (problem) return { ...base, enabled: false, url, source, reason: `Updates are off: ${problem}` };
  if (!inputs.packaged) return { ...base, enabled: false, url, source, reason: 'Updates are checked only in installed builds, not in development.' };
  return { ...base, enabled: true, url, source, reason: `Updates come from ${url} (${source === 'policy' ? 'set by policy' : 'set at build time'}).` };
}

/** The channel file's base name on the feed: "stable" is electron-builder's "latest". */
export function feedChannelName(channel: UpdateChannel): string {
  return channel === 'stable' ? 'latest' : channel;
}
