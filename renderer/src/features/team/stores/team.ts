import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ResponseOf } from '../../../../../preload/contract';
import { ask, createErrorLine, listen } from '../../../platform/request';

/** Where the team library stands, as main reports it. */
export type TeamStatus = ResponseOf<'team:status'>;
/** Main's answer to "does the team already own this?". */
export type TeamCheck = ResponseOf<'team:check'>;

/**
 * The team library as the window shows it: its status (kept up to date from main's `team:status`
 * events) and the analyst's catalog credentials, which go to main's keychain and are never read back.
 */
export const useTeamStore = defineStore('team', () => {
  const status = ref<TeamStatus | null>(null);
  /** What failed last of reading the status and storing the credentials. */
  const line = createErrorLine();
  const error = computed(() => line.error);
  let unsubscribe: (() => void) | null = null;

  async function load(): Promise<void> {
    const r = await line.ask((bridge) => bridge.teamStatus({}));
    if (r.ok) status.value = r.data;
  }

  function start(): void {
    if (unsubscribe) return;
    unsubscribe = listen('team:status', (s) => (status.value = s));
    void load();
  }

  /** Stores the role and password in main's keychain (null forgets them). */
  async function setCredentials(credentials: { role: string; password: string } | null): Promise<boolean> {
    const r = await line.ask((bridge) => bridge.teamSetCredentials({ credentials }));
    if (r.ok) status.value = r.data;
    return r.ok;
  }

  /** Uses a teammate's copy instead of buying (link: the file on the share; copy: into the download folder). */
  async function useCopy(id: string, mode: 'link' | 'copy') {
    return ask((bridge) => bridge.teamUseCopy({ id, mode }));
  }

  /** Previews a teammate's raster on the map without copying it (main reads it over the team's read URL). */
  async function preview(id: string) {
    return ask((bridge) => bridge.teamPreview({ id }));
  }

  /** Waits for the teammate buying this now to register their copy; the call's signal cancels the wait in main. */
  async function waitFor(kind: 'composite' | 'tile' | 'minitile', request: Record<string, unknown>, signal: AbortSignal) {
    return ask((bridge) => bridge.teamWait({ kind, request }), { signal });
  }

  return { status, error, load, start, setCredentials, useCopy, preview, waitFor };
});
