import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { AppInfo, ConnectionState, IpcError } from '../../../preload/contract';
import { getBridge } from '../bridge';

/** App and service identity plus connection health, shared by the shell and every panel. */
export const useSessionStore = defineStore('session', () => {
  const info = ref<AppInfo | null>(null);
  const infoError = ref<IpcError | null>(null);
  const connection = ref<ConnectionState>('connecting');
  const connectionDetail = ref<string | null>(null);
  const latencyMs = ref<number | null>(null);
  let unsubscribe: (() => void) | null = null;

  const serviceLabel = computed(() => info.value?.service.label ?? (infoError.value ? 'No service' : 'Loading…'));

  function setConnection(state: ConnectionState, detail?: string | null): void {
    connection.value = state;
    connectionDetail.value = detail ?? null;
  }

  async function loadInfo(): Promise<void> {
    const result = await getBridge().appInfo();
    if (result.ok) {
      info.value = result.data;
      infoError.value = null;
    } else {
      infoError.value = result.error;
    }
  }

  async function ping(): Promise<void> {
    const result = await getBridge().servicePing();
    if (!result.ok) {
      latencyMs.value = null;
      setConnection('offline', result.error.message);
      return;
    }
    latencyMs.value = Math.round(result.data.latencyMs);
    if (result.data.reachable) setConnection('online');
    else setConnection('offline', 'The service did not answer.');
  }

  /** Subscribes to connection events, then loads the app info and checks the service once. */
  async function start(): Promise<void> {
    if (!unsubscribe) {
      unsubscribe = getBridge().on('connection:state', (payload) => setConnection(payload.state, payload.detail));
    }
    setConnection('connecting');
    await loadInfo();
    if (info.value) await ping();
    else setConnection('offline', infoError.value?.message);
  }

  function stop(): void {
    unsubscribe?.();
    unsubscribe = null;
  }

  return { info, infoError, connection, connectionDetail, latencyMs, serviceLabel, start, stop, ping, loadInfo };
});
