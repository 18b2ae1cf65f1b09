import { AppError } from '../../common/errors.js';
import type { HandlerTable } from '../ipc';
import type { HostConfirm } from '../platform/confirm';
import type { KeyProbe, ProfileStore } from './profile-store.js';

/**
 * The profiles:* channels. A key is sent to an origin other than the one it was entered for only
 * after the analyst agreed in main's own dialog; a host without one (the browser host) refuses.
 */

/** The channels of the profiles. */
export type ProfileChannel =
  | 'profiles:list' | 'profiles:create' | 'profiles:update' | 'profiles:delete' | 'profiles:activate'
  | 'profiles:set-key' | 'profiles:delete-key' | 'profiles:test-key' | 'profiles:confirm-origin';

/** What the profile channels need. */
export interface ProfileHandlerDeps {
  profiles: ProfileStore;
  /** Calls account info with a key, for testing a stored key. */
  probe: KeyProbe;
  /** Told when what decides the key or URL in use changed (the service session drops its connection). */
  onChange: () => void;
  /** Main's own native question to the analyst; absent in the browser host, where what needs it is refused. */
  confirm?: HostConfirm;
}

/** The profiles' slice of the channel table. */
export function profileHandlers(deps: ProfileHandlerDeps): Pick<HandlerTable, ProfileChannel> {
  const { profiles } = deps;
  // Anything that changes which key or URL is used must drop the current connection.
  const changed = <T>(value: T): T => {
    deps.onChange();
    return value;
  };

  return {
    'profiles:list': () => profiles.list(),
    'profiles:create': async (r) => changed(await profiles.create(r)),
    'profiles:update': async ({ id, ...patch }) => changed(await profiles.update(id, patch)),
    'profiles:delete': async ({ id }) => {
      await profiles.delete(id);
      changed(null);
      return { deleted: true as const };
    },
    'profiles:activate': async ({ id }) => changed(await profiles.setActive(id)),
    'profiles:set-key': async ({ id, key }) => changed(await profiles.setKey(id, key)),
    'profiles:delete-key': async ({ id }) => changed(await profiles.deleteKey(id)),
    'profiles:test-key': ({ id }, { signal }) => profiles.testKey(id, deps.probe, { signal }),
    'profiles:confirm-origin': async ({ id }) => {
      const p = await profiles.shown(id);
      if (!p.keyNeedsConfirm || !p.baseUrl) return p;
      const origin = new URL(p.baseUrl).origin;
      const reEnter = { key: [`Key entered for ${p.keyOrigin}; enter it again for ${origin}.`] };
      if (!deps.confirm) {
        throw new AppError('validation', `This window cannot confirm sending the key of "${p.name}" to ${origin}; enter the key again.`, { fields: reEnter });
      }
      // Main's own dialog: the renderer asked, but only the analyst answers.
      const agreed = await deps.confirm({
        title: 'Send the API key to a new address?',
        message: `Send the API key of "${p.name}" to ${origin}?`,
        detail: `The key was entered for ${p.keyOrigin}. The profile now points at ${origin}.\n\nIf you did not change the address yourself, choose Cancel and check the profile.`,
        confirmLabel: `Send key to ${origin}`,
      });
      if (!agreed) throw new AppError('cancelled', `The key stays bound to ${p.keyOrigin}.`);
      return changed(await profiles.confirmKeyOrigin(id, origin));
    },
  };
}
