import { channel, data, noRequest } from './channel';

/** The account's channels (spread into the contract's channel map): the service's answers as it sends them. */
export const accountChannels = {
  /** Account info of the active key (fields as the service sends them). */
  'account:info': channel(noRequest, data),
  /** Account settings (fields as the service sends them). */
  'account:settings': channel(noRequest, data),
};
