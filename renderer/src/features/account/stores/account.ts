import { defineStore } from 'pinia';
import { watch } from 'vue';
import { createRequest } from '../../../platform/request';
import { useSessionStore } from '../../../platform/stores/session';

type Data = { data: unknown };

/** Account info and settings of the active key, as the service sends them (fields not assumed). */
export const useAccountStore = defineStore('account', () => {
  const session = useSessionStore();
  const info = createRequest<Data>();
  const settings = createRequest<Data>();

  /** Loads both; `force` reloads even when already loaded for this connection. */
  async function load(force = false): Promise<void> {
    const jobs: Promise<unknown>[] = [];
    if (force || (!info.data && !info.loading)) jobs.push(info.run((bridge) => bridge.accountInfo()));
    if (force || (!settings.data && !settings.loading)) jobs.push(settings.run((bridge) => bridge.accountSettings()));
    await Promise.all(jobs);
  }

  watch(() => session.generation, () => {
    info.reset();
    settings.reset();
  });

  return { info, settings, load };
});
