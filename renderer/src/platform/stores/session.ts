import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { AppInfo, ConnectionState, EventPayload, IpcError, ResponseOf } from '../../../../preload/contract';
import { ask, createRequest, listen } from '../request';

/** Status of the active service as `service:status` reports it (state, limits, contract notice). */
export type ServiceStatus = ResponseOf<'service:status'>;

/** A contract version notice from main. */
export type ContractNotice = EventPayload<'contract:notice'>;

/**
 * App and service identity plus connection health, shared by the shell and
 * every panel. `generation` increases whenever the active service may have
 * changed (profile, key, reconnect): stores that cache service data watch it.
 */
export const useSessionStore = defineStore('session', () => {
  const infoReq = createRequest<AppInfo>();
  const info = computed(() => infoReq.data);
  const infoError = computed(() => infoReq.error);
  const connection = ref<ConnectionState>('connecting');
  const connectionDetail = ref<string | null>(null);
  const latencyMs = ref<number | null>(null);
  const status = ref<ServiceStatus | null>(null);
  const contractNotice = ref<ContractNotice | null>(null);
  const noticeDismissed = ref(false);
  /** Last auth failure of the active key, if any (the key dialog shows it). */
  const authError = ref<IpcError | null>(null);
  const generation = ref(0);
  let unsubscribe: (() => void)[] = [];

  const serviceLabel = computed(() => {
    if (!info.value) return infoError.value ? 'No service' : 'Loading…';
    const s = info.value.service;
    return s.demo ? s.label : s.baseUrl || s.label;
  });
  const maxCompositeAreaKm2 = computed(() => status.value?.limits.maxCompositeAreaKm2 ?? null);
  const maxTotalBands = computed(() => status.value?.limits.maxTotalBands ?? null);

  function setConnection(state: ConnectionState, detail?: string | null): void {
    connection.value = state;
    connectionDetail.value = detail ?? null;
  }

  async function loadInfo(): Promise<void> {
    await infoReq.run((bridge) => bridge.appInfo());
  }

  async function refreshStatus(): Promise<void> {
    const result = await ask((bridge) => bridge.serviceStatus());
    if (!result.ok) return;
    status.value = result.data;
    if (result.data.contractNotice && !contractNotice.value) contractNotice.value = result.data.contractNotice;
  }

  async function ping(): Promise<void> {
    const result = await ask((bridge) => bridge.servicePing());
    if (!result.ok) {
      latencyMs.value = null;
      setConnection('offline', result.error.message);
      if (result.error.kind === 'auth') authError.value = result.error;
      return;
    }
    authError.value = null;
    latencyMs.value = Math.round(result.data.latencyMs);
    if (result.data.reachable) setConnection('online');
    else setConnection('offline', 'The service did not answer.');
  }

  /** Subscribes to main's events, then loads the app info, checks the service once and reads its status. */
  async function start(): Promise<void> {
    if (!unsubscribe.length) {
      unsubscribe = [
        listen('connection:state', (payload) => setConnection(payload.state, payload.detail)),
        listen('contract:notice', (payload) => {
          contractNotice.value = payload;
          noticeDismissed.value = false;
        }),
      ];
    }
    setConnection('connecting');
    await loadInfo();
    if (info.value) {
      await ping();
      await refreshStatus();
    } else setConnection('offline', infoError.value?.message);
  }

  /** After a profile, key or URL change: forget cached service data and connect again. */
  async function restart(): Promise<void> {
    generation.value++;
    status.value = null;
    contractNotice.value = null;
    authError.value = null;
    await start();
  }

  /** Drops the connection in main and connects again (reloads the specification and models). */
  async function reconnect(): Promise<void> {
    const result = await ask((bridge) => bridge.serviceReconnect());
    if (result.ok) status.value = result.data;
    await restart();
  }

  function dismissNotice(): void {
    noticeDismissed.value = true;
  }

  function stop(): void {
    unsubscribe.forEach((off) => off());
    unsubscribe = [];
  }

  return {
    info, infoError, connection, connectionDetail, latencyMs, status, contractNotice, noticeDismissed, authError, generation,
    serviceLabel, maxCompositeAreaKm2, maxTotalBands,
    start, stop, ping, loadInfo, refreshStatus, restart, reconnect, dismissNotice, setConnection,
  };
});
