import type { ServiceClient } from '../api';
import type { HandlerTable } from '../ipc';

/** The account:* channels: the active profile's account, as the service answers it. */

/** The channels of the account. */
export type AccountChannel = 'account:info' | 'account:settings';

/** The account's slice of the channel table, over the active profile's client. */
export function accountHandlers(client: (signal: AbortSignal) => Promise<ServiceClient>): Pick<HandlerTable, AccountChannel> {
  return {
    'account:info': async (_r, { signal }) => ({ data: await (await client(signal)).accountInfo(signal) }),
    'account:settings': async (_r, { signal }) => ({ data: await (await client(signal)).accountSettings(signal) }),
  };
}
