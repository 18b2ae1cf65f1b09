import path from 'node:path';
import { AppError } from '../../common/errors.js';
import type { HandlerTable } from '../ipc';
import { DEMO_PROFILE_ID, type ProfileStore } from '../keychain';
import type { PolicyState } from './load';

/**
 * What the policy changes in the running app: the predefined profiles exist
 * and are locked, the demo service is hidden, and the handlers refuse changes
 * to what the policy fixes (the renderer shows them as fixed, main enforces).
 */

/** Says which setting the organisation fixed; the UI shows it next to the control. */
export const FIXED_BY_POLICY = 'Fixed by your organisation’s policy.';

/** The policy as the renderer sees it (response of `policy:get`). */
export interface PolicyView {
  status: PolicyState['status'];
  file: string;
  problems: string[];
  lockedProfileIds: string[];
  hideDemoService: boolean;
  basemap: { online: 'osm' | 'none' | 'xyz'; xyzUrl: string | null; attribution: string | null } | null;
  downloadDir: string | null;
  updates: { url: string | null; channel: 'stable' | 'beta' | null; enabled: boolean | null } | null;
  monthlyBudget: { amount: number; currency: string } | null;
  notifications: boolean | null;
}

/** Creates (or re-points) the policy's profiles and returns their ids; activates the first one when the demo is hidden. */
export async function seedPolicyProfiles(profiles: ProfileStore, state: PolicyState, log: (line: string) => void = () => undefined): Promise<string[]> {
  const wanted = state.policy.profiles ?? [];
  const ids: string[] = [];
  for (const profile of wanted) {
    const existing = (await profiles.list()).profiles.find((p) => !p.builtIn && p.name.toLowerCase() === profile.name.toLowerCase());
    try {
      if (!existing) {
        ids.push((await profiles.create({ name: profile.name, baseUrl: profile.baseUrl })).id);
      } else {
        if (existing.baseUrl !== profile.baseUrl || existing.name !== profile.name) await profiles.update(existing.id, { name: profile.name, baseUrl: profile.baseUrl });
        ids.push(existing.id);
      }
    } catch (error) {
      log(`policy: profile "${profile.name}" could not be set up: ${(error as Error).message}`);
    }
  }
  if (state.policy.hideDemoService) {
    const listing = await profiles.list();
    if (listing.activeProfileId === DEMO_PROFILE_ID) {
      const next = ids[0] ?? listing.profiles.find((p) => !p.builtIn)?.id;
      if (next) await profiles.setActive(next);
    }
  }
  return ids;
}

/** The renderer's view of the policy. */
export function policyView(state: PolicyState, lockedProfileIds: readonly string[]): PolicyView {
  const p = state.policy;
  return {
    status: state.status,
    file: state.file,
    problems: state.problems,
    lockedProfileIds: [...lockedProfileIds],
    hideDemoService: p.hideDemoService ?? false,
    basemap: p.basemap ? { online: p.basemap.online, xyzUrl: p.basemap.xyzUrl ?? null, attribution: p.basemap.attribution ?? null } : null,
    downloadDir: p.downloadDir ?? null,
    updates: p.updates ? { url: p.updates.url ?? null, channel: p.updates.channel ?? null, enabled: p.updates.enabled ?? null } : null,
    monthlyBudget: p.monthlyBudget ?? null,
    notifications: p.notifications ?? null,
  };
}

/** The origins the online basemap loads tiles from under this policy (for the CSP): OSM by default, the internal server, or none. */
export function basemapOrigins(state: PolicyState): string[] {
  const basemap = state.policy.basemap;
  if (!basemap || basemap.online === 'osm') return ['https://tile.openstreetmap.org'];
  if (basemap.online === 'none' || !basemap.xyzUrl) return [];
  return [new URL(basemap.xyzUrl.replaceAll('{', '').replaceAll('}', '')).origin];
}

/** Wraps the handler table so that what the policy fixes cannot be changed through any channel. */
export function enforcePolicy(handlers: HandlerTable, state: PolicyState, lockedProfileIds: readonly string[]): HandlerTable {
  const p = state.policy;
  const locked = new Set(lockedProfileIds);
  const demoHidden = p.hideDemoService === true;
  const remoteBasemap = !p.basemap || p.basemap.online !== 'none';
  const fixedDir = p.downloadDir ?? null;
  const refuse = (field: string, what: string): never => {
    throw new AppError('validation', `${what} ${FIXED_BY_POLICY}`, { fields: { [field]: [FIXED_BY_POLICY] } });
  };
  const guardProfile = (id: string, what: string): void => {
    if (locked.has(id)) refuse('id', what);
    if (demoHidden && id === DEMO_PROFILE_ID) throw new AppError('not-found', 'No such profile.');
  };
  const targetDir = (given: string | undefined): string | undefined => {
    if (!fixedDir) return given;
    if (given !== undefined && path.resolve(given) !== path.resolve(fixedDir)) refuse('targetDir', 'The download folder is fixed.');
    return fixedDir;
  };
  const effectiveSettings = <S extends { downloadDir: string; osmLayer: boolean }>(s: S): S => ({
    ...s,
    ...(fixedDir ? { downloadDir: fixedDir } : {}),
    ...(remoteBasemap ? {} : { osmLayer: false }),
  });

  return {
    ...handlers,
    'profiles:list': async (request, context) => {
      const listing = await handlers['profiles:list'](request, context);
      if (!demoHidden) return listing;
      return { ...listing, profiles: listing.profiles.filter((profile) => profile.id !== DEMO_PROFILE_ID) };
    },
    'profiles:update': (request, context) => {
      guardProfile(request.id, 'This profile’s name and base URL are fixed.');
      return handlers['profiles:update'](request, context);
    },
    'profiles:delete': (request, context) => {
      guardProfile(request.id, 'This profile cannot be deleted.');
      return handlers['profiles:delete'](request, context);
    },
    'profiles:activate': (request, context) => {
      if (demoHidden && request.id === DEMO_PROFILE_ID) throw new AppError('not-found', 'No such profile.');
      return handlers['profiles:activate'](request, context);
    },
    'settings:get': async (request, context) => effectiveSettings(await handlers['settings:get'](request, context)),
    'settings:set': async (patch, context) => {
      if (fixedDir && patch.downloadDir !== undefined && path.resolve(patch.downloadDir) !== path.resolve(fixedDir)) refuse('downloadDir', 'The download folder is fixed.');
      if (!remoteBasemap && patch.osmLayer === true) refuse('osmLayer', 'Online basemaps are turned off.');
      return effectiveSettings(await handlers['settings:set'](patch, context));
    },
    'downloads:enqueue': (request, context) => handlers['downloads:enqueue']({ ...request, targetDir: targetDir(request.targetDir) }, context),
    'downloads:enqueue-series': (request, context) => handlers['downloads:enqueue-series']({ ...request, targetDir: targetDir(request.targetDir) }, context),
  };
}
