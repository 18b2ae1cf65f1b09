import path from 'node:path';
import { AppError } from '../../common/errors.js';
import type { Settings, SettingsPort } from '../platform/settings';
import type { PolicyState } from './load';

/** Says which setting the organisation fixed; the UI shows it next to the control. */
export const FIXED_BY_POLICY = 'Fixed by your organisation’s policy.';

/** Refuses a change the policy fixes, naming the field. */
export function refuseFixed(field: string, what: string): never {
  throw new AppError('validation', `${what} ${FIXED_BY_POLICY}`, { fields: { [field]: [FIXED_BY_POLICY] } });
}

/**
 * The effective settings: the policy over the user's, computed here once and handed to every
 * reader in main (downloads, watches, analysis saves, exports). What the policy fixes is what
 * `get` answers, and `set` refuses to change it.
 */
export function policySettings(user: SettingsPort, state: PolicyState): SettingsPort {
  const p = state.policy;
  const fixedDir = p.downloadDir ?? null;
  const remoteBasemap = !p.basemap || p.basemap.online !== 'none';
  const same = (a: string, b: string) => path.resolve(a) === path.resolve(b);
  const effective = (s: Settings): Settings => ({
    ...s,
    ...(fixedDir ? { downloadDir: fixedDir } : {}),
    ...(remoteBasemap ? {} : { osmLayer: false }),
  });
  if (!fixedDir && remoteBasemap) return user;
  return {
    get: () => effective(user.get()),
    async set(patch) {
      if (fixedDir && patch.downloadDir !== undefined && !same(patch.downloadDir, fixedDir)) refuseFixed('downloadDir', 'The download folder is fixed.');
      if (!remoteBasemap && patch.osmLayer === true) refuseFixed('osmLayer', 'Online basemaps are turned off.');
      return effective(await user.set(patch));
    },
    downloadDir(given) {
      if (!fixedDir) return user.downloadDir(given);
      if (given !== undefined && !same(given, fixedDir)) refuseFixed('targetDir', 'The download folder is fixed.');
      return fixedDir;
    },
  };
}
