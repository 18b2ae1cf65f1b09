import { AppError } from '../../common/errors.js';
import type { HandlerTable } from '../ipc';
import type { Clock } from '../platform/clock';
import type { Emit } from '../platform/emit';
import type { UpdateService, UpdateStatus } from './service';

/** The updates:* channels over the host's update service; off (and saying why) where the host cannot update itself. */

/** The channels of updates. */
export type UpdateChannel = 'updates:status' | 'updates:check' | 'updates:install' | 'updates:set-channel';

/** Creates the update service (with the app's clock); absent where the host cannot update itself (browser host, tests). */
export type OpenUpdateService = (onState: (status: UpdateStatus) => void, clock: Clock) => Promise<UpdateService>;

const OFF: Omit<UpdateStatus, 'currentVersion'> = {
  state: 'off', message: 'Updates are handled outside this window (development host).', version: null, releaseNotes: null, percent: null,
  url: null, channel: 'stable', channelFixed: false, checkedAt: null,
};

/** The running updates: their channels, where they stand (diagnostics) and their stop. */
export interface Updates {
  handlers: Pick<HandlerTable, UpdateChannel>;
  /** The update service's state, or null without one. */
  state(): UpdateStatus | null;
  close(): void;
}

/** Starts the host's update service, if it has one, and serves its channels. */
export async function openUpdates(open: OpenUpdateService | undefined, deps: { version: string; emit: Emit; clock: Clock }): Promise<Updates> {
  const updates = open ? await open((s) => deps.emit('updates:state', s), deps.clock) : null;
  updates?.start();
  const require = (): UpdateService => {
    if (!updates) throw new AppError('validation', OFF.message);
    return updates;
  };
  return {
    handlers: {
      'updates:status': () => updates?.state() ?? { ...OFF, currentVersion: deps.version },
      'updates:check': () => require().check(),
      'updates:install': () => require().install(),
      'updates:set-channel': ({ channel }) => require().setChannel(channel),
    },
    state: () => updates?.state() ?? null,
    close: () => updates?.stop(),
  };
}
