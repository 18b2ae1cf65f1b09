import { DEMO_PROFILE_ID, type ProfileStore } from '../profiles';
import type { PolicyState } from './load';
import { SERVICE_CURRENCY } from '../../common/money.js';
import { FIXED_BY_POLICY } from './settings';

/**
 * What the policy changes in the running app: the predefined profiles exist and are locked (the
 * profile store refuses edits), the demo service is hidden, the settings every reader in main gets
 * are the effective ones (./settings.ts), and the budget ceiling binds the spend guard
 * (main/spend). The renderer shows what is fixed; main enforces it.
 */

export { FIXED_BY_POLICY, policySettings, refuseFixed } from './settings';

/** The policy's monthly ceiling in EUR, or null (none, or one in another currency: see {@link budgetProblem}). */
export function budgetCeilingEur(state: PolicyState): number | null {
  const b = state.policy.monthlyBudget;
  return b && b.currency === SERVICE_CURRENCY ? b.amount : null;
}

/**
 * Why the policy's monthly budget cannot be honoured (the file's ceiling cannot be read, or it is in
 * a currency other than the service's), or null. Never ignored: Settings and diagnostics show it,
 * and every spend then needs confirmation.
 */
export function budgetProblem(state: PolicyState): string | null {
  if (state.ceilingUnreadable) {
    return `monthlyBudget: the policy's ceiling cannot be read (${state.ceilingUnreadable}). Until the policy file is fixed, every spend needs your confirmation.`;
  }
  const b = state.policy.monthlyBudget;
  if (!b || b.currency === SERVICE_CURRENCY) return null;
  return `monthlyBudget: ${b.amount} ${b.currency} cannot be enforced: the service bills in ${SERVICE_CURRENCY} and Swath does not convert currencies. Until the policy names the budget in ${SERVICE_CURRENCY}, every spend needs your confirmation.`;
}

/** The policy's threshold above which a spend without a budget asks (EUR), or null (the spend guard's own default). */
export function confirmSpendAboveEur(state: PolicyState): number | null {
  return state.policy.confirmSpendAboveEur ?? null;
}

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
  team: { catalogUrl: string | null; sharePath: string | null; readUrl: string | null } | null;
}

/** Creates (or re-points) the policy's profiles and returns their ids; hides the demo profile when the policy says so, and activates the first one instead. */
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
  profiles.lock(ids, FIXED_BY_POLICY);
  if (state.policy.hideDemoService) {
    // The store hides it itself: neither listed nor reachable through any profile channel.
    profiles.hideDemo();
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
    problems: [...state.problems, ...[budgetProblem(state)].filter((p): p is string => p !== null)],
    lockedProfileIds: [...lockedProfileIds],
    hideDemoService: p.hideDemoService ?? false,
    basemap: p.basemap ? { online: p.basemap.online, xyzUrl: p.basemap.xyzUrl ?? null, attribution: p.basemap.attribution ?? null } : null,
    downloadDir: p.downloadDir ?? null,
    updates: p.updates ? { url: p.updates.url ?? null, channel: p.updates.channel ?? null, enabled: p.updates.enabled ?? null } : null,
    monthlyBudget: p.monthlyBudget ?? null,
    notifications: p.notifications ?? null,
    team: p.teamCatalogUrl || p.teamSharePath || p.teamReadUrl
      ? { catalogUrl: p.teamCatalogUrl ?? null, sharePath: p.teamSharePath ?? null, readUrl: p.teamReadUrl ?? null }
      : null,
  };
}

/** The origins the online basemap loads tiles from under this policy (for the CSP): OSM by default, the internal server, or none. */
export function basemapOrigins(state: PolicyState): string[] {
  const basemap = state.policy.basemap;
  if (!basemap || basemap.online === 'osm') return ['https://tile.openstreetmap.org'];
  if (basemap.online === 'none' || !basemap.xyzUrl) return [];
  return [new URL(basemap.xyzUrl.replaceAll('{', '').replaceAll('}', '')).origin];
}
