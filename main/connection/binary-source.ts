import { AppError } from '../../common/errors.js';
import type { ServiceClient } from '../api';
import type { BinarySource } from '../downloads';

/**
 * The download queue's source: the process operations of the active profile's client. A job names
 * the profile it was cleared under; it is sent only while that profile is the active one (its client
 * and key, the account it was cleared against), and refused before sending otherwise: a job is never
 * charged to a profile that did not clear it.
 */
export function clientBinarySource(client: (signal: AbortSignal) => Promise<ServiceClient>, activeProfile?: () => Promise<string>): BinarySource {
  const check = async (profileId: string | undefined): Promise<void> => {
    if (profileId === undefined || !activeProfile) return;
    const active = await activeProfile();
    if (active !== profileId) {
      throw new AppError('validation', `This download was cleared under the profile "${profileId}", which is not the active profile now ("${active}"): it was not sent, and nothing was charged. Switch back to that profile and Retry, or Retry under this one (it is then decided again for this profile).`);
    }
  };
  return {
    async fetchBinary(kind, body, signal, profileId) {
      await check(profileId);
      const c = await client(signal);
      // The client was made for the profile active when asked: still the job's, or it is not sent.
      await check(profileId);
      if (kind === 'composite') return c.processComposite(body as never, signal);
      if (kind === 'tile') return c.processTile(body as never, signal);
      return c.processMiniTile(body as never, signal);
    },
  };
}
